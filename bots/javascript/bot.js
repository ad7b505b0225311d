// An Arena bot in JavaScript, from the protocol files alone (docs/writing-a-bot.md, part 3).
// The referee starts it in its sandbox with ARENA_SERVER (unix:/run/arena/referee.sock),
// ARENA_TOKEN_FILE (a file holding its launch token), ARENA_BOT_NAME and ARENA_CONCURRENCY in the
// environment; started by hand against a remote referee, pass them as arguments:
//   node bot.js HOST:PORT TOKEN NAME
// or, on a hosted ladder, the one setting ARENA_REMOTE=arena://NAME:TOKEN@HOST:PORT (arenas:// for TLS).
// The bot carries its own copy of the .proto files (protos/): in the sandbox it sees its folder only.
// Check it as the referee will run it: arena bot test bots/javascript
const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const protos = path.resolve(__dirname, "protos");
// longs: String keeps 64-bit fields (sequence, agent_seed) exact; oneofs: true names the message kind.
const definition = protoLoader.loadSync("arena/v1/bot.proto", { includeDirs: [protos], keepCase: true, longs: String, defaults: true, oneofs: true });
const arena = grpc.loadPackageDefinition(definition).arena.v1;

const remote = process.env.ARENA_REMOTE ? new URL(process.env.ARENA_REMOTE) : null;
const [server, token, name] = remote
  ? [`${remote.hostname}:${remote.port || 50051}`, decodeURIComponent(remote.password), decodeURIComponent(remote.username)]
  : [process.argv[2] || process.env.ARENA_SERVER,
    process.argv[3] || (process.env.ARENA_TOKEN_FILE ? fs.readFileSync(process.env.ARENA_TOKEN_FILE, "utf8").trim() : ""),
    process.argv[4] || process.env.ARENA_BOT_NAME || "starter-js"];
const streams = Number(process.env.ARENA_CONCURRENCY || 1);  // matches at once (bot.toml's concurrency)
const tls = remote && remote.protocol === "arenas:";
const client = new arena.Bot(server, tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure());

function playOneMatch(slot) {
  const stream = client.Play();  // one stream per match
  let started = false;
  let labels = [];  // what every action id means, from MatchStart: no labels needed per request
  let last = "";
  // omit_labels: requests carry ids only; MatchStart.action_labels says what each id means, once.
  stream.write({ hello: { protocol_version: 1, name, version: "1", token, games: ["*"], omit_labels: true } });
  stream.on("data", (message) => {
    if (message.kind === "match_start") {
      started = true;
      labels = message.match_start.action_labels;
      console.error(`[${slot}] seated as ${message.match_start.seat} in ${message.match_start.game}`);
    } else if (message.kind === "decision_request") {
      const request = message.decision_request;
      // request.observation.major_general (or .general_orders) holds the typed observation; unused here.
      // >>> YOUR STRATEGY GOES HERE <<<  the first legal action; request.legal_actions are ascending ids,
      // labels[id] says what each one does, request.observation the seat's view of the game.
      const action = request.legal_actions[0];
      last = labels[action] || String(action);
      // sequence is a string (64-bit): echo it as it came
      stream.write({ decision: { sequence: request.sequence, action } });
    } else if (message.kind === "match_end") {
      // may come while a decision is open (the opponent left): nothing to answer then
      console.error(`[${slot}] result: ${message.match_end.result.reason} (my last move: ${last})`);
    }
  });
  stream.on("end", () => {
    stream.end();
    if (started) playOneMatch(slot);  // a new stream and Hello for the next match
    else process.exit(0);             // closed without a match: the referee is shutting down
  });
  stream.on("error", (error) => {
    if (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.CANCELLED) process.exit(0);
    console.error(`refused: ${error.details}`);
    process.exit(2);
  });
}

for (let slot = 0; slot < streams; slot++) playOneMatch(slot);
