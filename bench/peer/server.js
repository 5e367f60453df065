// boardgame.io's Server (Koa lobby API + socket.io transport) hosting Climb, with the
// Redis storage adapter or boardgame.io's default in-memory storage.
//
//   node server.js --port 8123 --storage redis --redis-url redis://127.0.0.1:6379/0
//   node server.js --port 8124 --storage memory
//
// Prints one line `listening <port>` on stdout once it accepts connections. Run it with
// NODE_ENV=production, as an operator would (boardgame.io then logs no per-move lines).

const { Server, Origins } = require('boardgame.io/server');
const { Climb } = require('./game');
const { RedisStorage } = require('./redis-storage');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

async function main() {
  const port = Number(option('port', '8123'));
  const storage = option('storage', 'memory');
  let db;
  if (storage === 'redis') {
    db = new RedisStorage({ url: option('redis-url', 'redis://127.0.0.1:6379/0') });
  } else if (storage !== 'memory') {
    throw new Error(`--storage must be redis or memory, not ${storage}`);
  }
  const server = Server({ games: [Climb], db, origins: [Origins.LOCALHOST] });
  const running = await server.run(port);
  process.stdout.write(`listening ${port}\n`);
  const stop = () => {
    server.kill(running);
    if (db) db.close().finally(() => process.exit(0));
    else process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
