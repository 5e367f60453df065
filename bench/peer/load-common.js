// What both load clients share: options, the measured window (opened and closed by the
// Python side through stdin), counters, and the result line.
//
// Protocol (one JSON object per stdout line):
//   -> {"event": "ready"}   every slot's first game is seated and each of its seats has
//                           had its first state (warm-up starts)
//   <- "start" on stdin     the window opens: counters start
//   <- "stop" on stdin      the window closes: the result line follows, then the client
//                           stops its games and exits
//   -> {"event": "result", ...}

const readline = require('readline');

function options(argv) {
  const out = {};
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split('=', 2);
    out[name] = inline !== undefined ? inline : argv[++i];
  }
  return out;
}

// A small seeded generator (mulberry32): each slot draws its moves reproducibly.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const now = () => performance.now();

class Stats {
  constructor() {
    this.measuring = false;
    this.openedAt = 0;
    this.closedAt = 0;
    this.moves = 0;
    this.act = []; // ms from sending a move to its confirmation, moves confirmed in the window
    this.cycle = []; // ms between consecutive confirmed moves of one game
    this.sent = {}; // messages the server received, by kind (HTTP requests, socket.io events)
    this.received = {}; // messages the server sent, by kind (HTTP answers, socket.io events)
    this.statuses = {};
    this.problems = {}; // what went wrong, by kind: counted in and out of the window
    this.refused = {}; // moves the server refused (the client then looks again), by status
    this.finishedGames = 0; // games that ended inside the window
    this.finishedMoves = 0; // their moves (all of them, also those before the window)
    this.finishedIds = []; // games that ended (any time): the Python side sizes them in Redis
  }

  open() {
    this.measuring = true;
    this.openedAt = now();
  }

  close() {
    this.measuring = false;
    this.closedAt = now();
  }

  toServer(kind, count = 1) {
    if (this.measuring) this.sent[kind] = (this.sent[kind] || 0) + count;
  }

  fromServer(kind, count = 1) {
    if (this.measuring) this.received[kind] = (this.received[kind] || 0) + count;
  }

  status(code) {
    if (this.measuring) this.statuses[code] = (this.statuses[code] || 0) + 1;
  }

  refuse(code) {
    if (this.measuring) this.refused[code] = (this.refused[code] || 0) + 1;
  }

  problem(kind, detail) {
    const entry = this.problems[kind] || { count: 0, first: String(detail).slice(0, 300) };
    entry.count += 1;
    this.problems[kind] = entry;
  }

  move(actMs, cycleMs) {
    if (!this.measuring) return;
    this.moves += 1;
    this.act.push(Math.round(actMs * 1000) / 1000);
    if (cycleMs !== null) this.cycle.push(Math.round(cycleMs * 1000) / 1000);
  }

  gameOver(id, moves) {
    if (this.finishedIds.length < 200) this.finishedIds.push(id);
    if (!this.measuring) return;
    this.finishedGames += 1;
    this.finishedMoves += moves;
  }

  result(extra) {
    return {
      event: 'result',
      window_s: (this.closedAt - this.openedAt) / 1000,
      moves: this.moves,
      act_ms: this.act,
      cycle_ms: this.cycle,
      to_server: this.sent,
      from_server: this.received,
      statuses: this.statuses,
      problems: this.problems,
      refused: this.refused,
      finished_games: this.finishedGames,
      finished_moves: this.finishedMoves,
      finished_ids: this.finishedIds,
      ...extra,
    };
  }
}

// One game's confirmed moves, for the time between consecutive ones.
class GameClock {
  constructor() {
    this.last = null;
    this.moves = 0;
  }

  confirmed() {
    const at = now();
    const cycle = this.last === null ? null : at - this.last;
    this.last = at;
    this.moves += 1;
    return cycle;
  }
}

function say(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

// Runs `slots` concurrent games with `playOne(game, control, started)` (one whole game;
// resolves when it is over or `control.stopping`; calls `started()` once every seat has had
// its first state), a new game as soon as one ends, until "stop".
async function drive({ slots, setup, playOne, teardown, stats, extra }) {
  const control = { stopping: false };
  const lines = readline.createInterface({ input: process.stdin });
  let stopped;
  const stoppedPromise = new Promise((resolve) => {
    stopped = resolve;
  });
  lines.on('line', (line) => {
    const word = line.trim();
    if (word === 'start') stats.open();
    if (word === 'stop') {
      stats.close();
      control.stopping = true;
      say(stats.result(extra ? extra() : {}));
      stopped();
    }
  });
  lines.on('close', () => {
    control.stopping = true;
    stopped();
  });
  let seated = 0;
  let announced = false;
  const loops = [];
  for (let slot = 0; slot < slots; slot++) {
    loops.push(
      (async () => {
        let first = true;
        while (!control.stopping) {
          let game;
          try {
            game = await setup(slot, control);
          } catch (error) {
            if (control.stopping) break;
            stats.problem('setup', error && error.stack ? error.stack : error);
            await new Promise((resolve) => setTimeout(resolve, 200));
            continue;
          }
          let started = () => {};
          if (first) {
            first = false;
            started = () => {
              started = () => {};
              seated += 1;
              if (seated === slots && !announced) {
                announced = true;
                say({ event: 'ready' });
              }
            };
          }
          try {
            await playOne(game, control, () => started());
          } catch (error) {
            if (!control.stopping) stats.problem('play', error && error.stack ? error.stack : error);
          }
        }
      })()
    );
  }
  await stoppedPromise;
  await teardown();
  await Promise.race([
    Promise.allSettled(loops),
    new Promise((resolve) => setTimeout(resolve, 5000)),
  ]);
}

module.exports = { options, rng, now, Stats, GameClock, say, drive };
