// An Arena bot in C++, from the protocol files alone (docs/protocol.md): gRPC's C++ library and the
// .proto files in protos/, compiled with protoc (see the Makefile). No Arena code.
//
// The referee starts it in its sandbox with ARENA_SERVER (unix:/run/arena/referee.sock),
// ARENA_TOKEN_FILE (a file holding its launch token), ARENA_BOT_NAME and ARENA_CONCURRENCY in the
// environment. On a hosted ladder, run it on your own computer with the one setting
//   ARENA_REMOTE=arena://NAME:TOKEN@HOST:PORT ./starter-bot      (arenas:// for TLS)
// Check it as the referee will run it: arena bot test bots/cpp

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "arena/v1/bot.grpc.pb.h"

using arena::v1::BotMessage;
using arena::v1::DecisionRequest;
using arena::v1::RefereeMessage;

namespace {

// >>> YOUR STRATEGY GOES HERE <<<
// `request.legal_actions()` are the ascending ids you may answer; `labels[id]` says what each does (sent
// once, in MatchStart); `request.observation()` is your seat's view of the game, typed per family
// (.major_general(), .general_orders(), .sengoku()...: see protos/arena/v1/observations.proto).
// The starter answers a random legal action, drawn from the referee's seed so a match can be replayed.
int Choose(const DecisionRequest& request, const std::vector<std::string>& labels, std::mt19937_64& rng) {
  (void)labels;
  const auto& legal = request.legal_actions();
  return legal[static_cast<int>(rng() % static_cast<std::uint64_t>(legal.size()))];
}

std::string Env(const char* name, const std::string& otherwise = "") {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : otherwise;
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string Decoded(const std::string& text) {  // %XX escapes of a URL's user or password
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct Config {
  std::string server, token, name;
  bool tls = false;
  int streams = 1;
};

Config ReadConfig() {
  Config config;
  const std::string remote = Env("ARENA_REMOTE");
  if (!remote.empty()) {  // arena://NAME:TOKEN@HOST:PORT
    const auto scheme = remote.find("://");
    const auto at = remote.rfind('@');
    const auto colon = remote.find(':', scheme + 3);
    if (scheme == std::string::npos || at == std::string::npos || colon == std::string::npos || colon > at) {
      std::cerr << "ARENA_REMOTE must be arena://NAME:TOKEN@HOST:PORT" << std::endl;
      std::exit(2);
    }
    config.tls = remote.compare(0, scheme, "arenas") == 0;
    config.name = Decoded(remote.substr(scheme + 3, colon - scheme - 3));
    config.token = Decoded(remote.substr(colon + 1, at - colon - 1));
    config.server = remote.substr(at + 1);
    if (config.server.find(':') == std::string::npos) config.server += ":50051";
  } else {
    config.server = Env("ARENA_SERVER");
    const std::string token_file = Env("ARENA_TOKEN_FILE");
    if (!token_file.empty()) {
      std::ifstream file(token_file);
      std::stringstream text;
      text << file.rdbuf();
      config.token = Trimmed(text.str());
    }
    config.name = Env("ARENA_BOT_NAME", "starter-cpp");
  }
  config.streams = std::max(1, std::atoi(Env("ARENA_CONCURRENCY", "1").c_str()));
  return config;
}

// One match on one stream: Hello, then answer every request until the referee ends the stream. True when a
// match was played (then the next one wants a new stream), false when the stream closed without one.
bool PlayOneMatch(arena::v1::Bot::Stub& stub, const Config& config, int slot) {
  grpc::ClientContext context;
  auto stream = stub.Play(&context);
  BotMessage hello;
  auto* greeting = hello.mutable_hello();
  greeting->set_protocol_version(1);
  greeting->set_name(config.name);
  greeting->set_version("1");
  greeting->set_token(config.token);
  greeting->add_games("*");
  greeting->set_omit_labels(true);  // requests carry ids only: MatchStart.action_labels says what each id means
  stream->Write(hello);

  bool started = false;
  std::vector<std::string> labels;
  std::mt19937_64 rng;
  RefereeMessage message;
  while (stream->Read(&message)) {
    switch (message.kind_case()) {
      case RefereeMessage::kMatchStart:
        started = true;
        labels.assign(message.match_start().action_labels().begin(), message.match_start().action_labels().end());
        rng.seed(message.match_start().agent_seed());
        std::cerr << "[" << slot << "] seated as " << message.match_start().seat() << " in "
                  << message.match_start().game() << std::endl;
        break;
      case RefereeMessage::kDecisionRequest: {
        const DecisionRequest& request = message.decision_request();
        BotMessage answer;
        answer.mutable_decision()->set_sequence(request.sequence());  // echo the request's sequence number
        answer.mutable_decision()->set_action(Choose(request, labels, rng));
        stream->Write(answer);
        break;
      }
      case RefereeMessage::kMatchEnd:  // may come while a decision is open (the opponent left): nothing to answer
        std::cerr << "[" << slot << "] result: " << message.match_end().result().reason() << std::endl;
        break;
      default:
        break;
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (!status.ok() && status.error_code() != grpc::StatusCode::UNAVAILABLE &&
      status.error_code() != grpc::StatusCode::CANCELLED) {
    std::cerr << "refused: " << status.error_message() << std::endl;
    std::exit(2);
  }
  return started;
}

}  // namespace

int main() {
  const Config config = ReadConfig();
  if (config.server.empty()) {
    std::cerr << "no referee to play: set ARENA_SERVER (the referee sets it) or ARENA_REMOTE" << std::endl;
    return 2;
  }
  auto credentials = config.tls ? grpc::SslCredentials(grpc::SslCredentialsOptions())
                                : grpc::InsecureChannelCredentials();
  auto channel = grpc::CreateChannel(config.server, credentials);
  auto stub = arena::v1::Bot::NewStub(channel);
  std::vector<std::thread> slots;
  for (int slot = 0; slot < config.streams; ++slot) {  // one stream per match, ARENA_CONCURRENCY at once
    slots.emplace_back([&stub, &config, slot] {
      while (PlayOneMatch(*stub, config, slot)) {
      }
    });
  }
  for (auto& thread : slots) thread.join();
  return 0;
}
