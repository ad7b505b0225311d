// An Arena bot in JavaScript, from the protocol files alone (docs/writing-a-bot.md, part 3).
// The referee starts it in its sandbox with ARENA_SERVER (unix:/run/arena/referee.sock),
// ARENA_TOKEN_FILE (a file holding its launch token) and ARENA_BOT_NAME in the environment;
// started by hand against a remote referee, pass them as arguments: node bot.js HOST:PORT TOKEN NAME
// The bot carries its own copy of the .proto files (protos/): in the sandbox it sees its folder only.
const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const protos = path.resolve(__dirname, "protos");
const definition = protoLoader.loadSync("arena/v1/bot.proto", { includeDirs: [protos], keepCase: true, longs: Number, defaults: true, oneofs: true });
const arena = grpc.loadPackageDefinition(definition).arena.v1;

const [server, token, name] = [
  process.argv[2] || process.env.ARENA_SERVER,
  process.argv[3] || (process.env.ARENA_TOKEN_FILE ? fs.readFileSync(process.env.ARENA_TOKEN_FILE, "utf8").trim() : ""),
  process.argv[4] || process.env.ARENA_BOT_NAME || "node-first",
];
const client = new arena.Bot(server, grpc.credentials.createInsecure());

function playOneMatch() {
  const stream = client.Play();  // one stream per match
  let started = false;
  stream.write({ hello: { protocol_version: 1, name, version: "1", token, games: ["*"], omit_labels: true } });
  stream.on("data", (message) => {
    if (message.match_start) {
      started = true;
      console.error(`seated as ${message.match_start.seat} in ${message.match_start.game}`);
    } else if (message.decision_request) {
      const request = message.decision_request;
      // request.observation.major_general holds the typed observation; this bot does not need it.
      stream.write({ decision: { sequence: request.sequence, action: request.legal_actions[0] } });
    } else if (message.match_end) {
      console.error(`result: ${message.match_end.result.reason}`);
    }
  });
  stream.on("end", () => {
    stream.end();
    if (started) playOneMatch();  // a new stream and Hello for the next match
    else process.exit(0);        // closed without a match: the referee is shutting down
  });
  stream.on("error", (error) => {
    if (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.CANCELLED) process.exit(0);
    console.error(`refused: ${error.details}`);
    process.exit(2);
  });
}

playOneMatch();
