// The cardroom load: N concurrent 4-player games, each seat a client of its own that follows
// its game exactly as the SDK's `Seat.play` with a random bot does (sdk/cardroom_sdk/client.py):
//
//   wait_for_turn: open the seat's game socket (GET …/socket, a WebSocket; the SDK's
//   cardroom_sdk/socket.py), send {"type": "hello", "token"}, and take the views the server
//   sends; when one says it is this seat's turn, send {"type": "act", "id": <key>,
//   "action": one of its legal_actions at random, "if_match": <its etag>} and wait for the
//   answer on the socket; a refusal (409/412) looks again (GET …/view over HTTP unless a newer
//   view came meanwhile), as the SDK's Seat._move does.
//
// Creating the game and joining go over HTTP (one keep-alive connection per seat, as the
// SDK's `requests.Session` keeps one). The same messages, headers and retries as the SDK
// (bench/peer/README.md; the Python side checks the mix against the SDK itself: "SDK
// check"), without Python's per-message cost.
//
//   node load-cardroom.js --url http://127.0.0.1:8000 --games 16 [--game-type exact-plays]
//        [--seed 1]

const http = require('http');
const crypto = require('crypto');
const WebSocket = require('ws');
const { options, rng, now, Stats, GameClock, drive } = require('./load-common');

const opts = options(process.argv);
const base = new URL(opts.url);
const slots = Number(opts.games || 16);
const seed = Number(opts.seed || 1);
const gameType = opts['game-type'] || 'exact-plays';
const PLAYERS = 4;
const RETRIES = 3; // the SDK's defaults: 3 retries after 0.2 s * 2**n
const BACKOFF_MS = 200;
const RETRY_STATUSES = new Set([502, 503, 504]);
const stats = new Stats();
const agents = new Set();
const sockets = new Set();
const random = [];
let nextSeed = seed * 1_000_000;

class Stopped extends Error {}

// One seat's HTTP client: its own agent, so its own keep-alive connection.
class Http {
  constructor() {
    // An idle connection is closed after 4 s (IDLE_REUSE in the SDK's client.py), before the
    // server's 5 s keep-alive could close it under a request.
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1, timeout: 4000 });
    agents.add(this.agent);
  }

  close() {
    this.agent.destroy();
    agents.delete(this.agent);
  }

  once(method, path, headers, body) {
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          agent: this.agent,
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers,
        },
        (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json = null;
            try {
              json = text ? JSON.parse(text) : null;
            } catch {
              json = null;
            }
            resolve({ status: response.statusCode, json, text });
          });
          response.on('error', reject);
        }
      );
      request.on('error', reject);
      if (body !== undefined) request.write(body);
      request.end();
    });
  }

  // The SDK's Client._request: retry connection errors and 502/503/504 (every request this
  // load sends may be retried: reads, and actions with their Idempotency-Key; create and
  // join only when the connection failed before sending).
  async request(kind, method, path, { token, json, headers = {}, control, safe = true } = {}) {
    const all = {
      Accept: 'application/json, application/problem+json',
      'Accept-Encoding': 'gzip, deflate',
      'User-Agent': 'cardroom-bench-peer (cardroom-sdk requests)',
      Connection: 'keep-alive',
      ...headers,
    };
    if (token) all.Authorization = `Bearer ${token}`;
    let body;
    if (json !== undefined) {
      body = JSON.stringify(json);
      all['Content-Type'] = 'application/json';
      all['Content-Length'] = Buffer.byteLength(body);
    }
    for (let attempt = 0; ; attempt++) {
      if (control && control.stopping) throw new Stopped();
      stats.toServer(kind);
      let answer;
      try {
        answer = await this.once(method, path, all, body);
      } catch (error) {
        if (control && control.stopping) throw new Stopped();
        const unsent = error.code === 'ECONNREFUSED';
        stats.problem(`transport error (${error.code || error.message})`, `${method} ${path}`);
        if ((!safe && !unsent) || attempt >= RETRIES) throw error;
        stats.problem('retried', `${method} ${path}: ${error.code || error.message}`);
        await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * 2 ** attempt));
        continue;
      }
      stats.fromServer(kind);
      stats.status(answer.status);
      if (safe && RETRY_STATUSES.has(answer.status) && attempt < RETRIES) {
        stats.problem('retried', `${method} ${path}: ${answer.status}`);
        await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * 2 ** attempt));
        continue;
      }
      return answer;
    }
  }
}

function expect(answer, statuses, what) {
  if (!statuses.includes(answer.status)) {
    throw new Error(`${what}: ${answer.status} ${answer.text.slice(0, 300)}`);
  }
  return answer.json;
}

async function setup(slot, control) {
  if (!random[slot]) random[slot] = rng(seed * 1000 + slot);
  const seats = Array.from({ length: PLAYERS }, () => new Http());
  try {
    const created = expect(
      await seats[0].request('create', 'POST', '/v1/games', {
        json: { game_type: gameType, players: PLAYERS, seed: nextSeed++ },
        safe: false,
        control,
      }),
      [201],
      'create'
    );
    const joined = [];
    for (let p = 0; p < PLAYERS; p++) {
      const answer = await seats[p].request('join', 'POST', `/v1/games/${created.id}/join`, {
        json: { name: `p${p}` },
        safe: false,
        control,
      });
      joined.push(expect(answer, [201], 'join'));
    }
    return {
      slot,
      id: created.id,
      seats: joined.map((j, p) => ({
        http: seats[p],
        seat: j.seat,
        token: j.token,
        socket: null,
      })),
    };
  } catch (error) {
    for (const seat of seats) seat.close();
    throw error;
  }
}

const path = (id, rest) => `/v1/games/${encodeURIComponent(id)}/${rest}`;
// View.my_turn: the game awaits this seat and it has legal actions.
const myTurn = (view, seat) =>
  view.you && view.you.seat === seat.seat && view.awaiting.includes(seat.seat) && view.legal_actions.length > 0;

async function view(game, seat, control) {
  const answer = await seat.http.request('view', 'GET', path(game.id, 'view'), {
    token: seat.token,
    control,
  });
  return expect(answer, [200], 'view');
}

const newer = (one, other) => {
  if (!one) return other;
  if (!other) return one;
  const a = [one.version, one.last_seq || 0];
  const b = [other.version, other.last_seq || 0];
  return b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]) ? other : one;
};

// The seat's game socket (cardroom_sdk/socket.py's GameSocket): views kept as `latest`,
// answers to actions matched by id.
class GameSocket {
  constructor(game, seat, control) {
    this.latest = null;
    this.waiters = [];
    this.answers = new Map();
    this.closed = null;
    this.control = control;
    const url = `ws://${base.host}${path(game.id, 'socket')}`;
    stats.toServer('socket');
    this.ws = new WebSocket(url, { headers: { 'User-Agent': 'cardroom-bench-peer (cardroom-sdk websocket)' } });
    sockets.add(this);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => {
        this.send({ type: 'hello', token: seat.token }, 'hello');
        resolve();
      });
      this.ws.once('error', reject);
    });
    this.ws.on('message', (data) => this.receive(JSON.parse(data.toString('utf8'))));
    this.ws.on('close', () => {
      this.closed = new Stopped();
      this.wake();
    });
    this.ws.on('error', () => {});
  }

  send(message, kind) {
    stats.toServer(kind);
    this.ws.send(JSON.stringify(message));
  }

  receive(message) {
    if (message.type === 'view' && message.id === undefined) {
      stats.fromServer('view (pushed)');
      this.latest = newer(this.latest, message.view);
    } else if (message.id !== undefined && message.id !== null) {
      stats.fromServer(message.type === 'view' ? 'look' : 'act');
      const waiter = this.answers.get(message.id);
      if (waiter) waiter(message);
    } else {
      stats.problem(`socket problem ${message.problem && message.problem.status}`, JSON.stringify(message).slice(0, 200));
    }
    this.wake();
  }

  wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  changed() {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  // GameSocket.next_view: a view newer than `after`.
  async nextView(after) {
    for (;;) {
      if (this.control.stopping || this.closed) throw new Stopped();
      if (this.latest && newer(after, this.latest) !== after) return this.latest;
      await this.changed();
    }
  }

  // GameSocket.act: send and wait for the answer with this id.
  async act(action, ifMatch, key) {
    const answer = new Promise((resolve) => this.answers.set(key, resolve));
    const message = { type: 'act', id: key, action };
    if (ifMatch) message.if_match = ifMatch;
    this.send(message, 'act');
    const closed = this.changed().then(async () => {
      while (!this.closed && !this.control.stopping) await this.changed();
      throw new Stopped();
    });
    try {
      return await Promise.race([answer, closed]);
    } finally {
      this.answers.delete(key);
    }
  }

  close() {
    sockets.delete(this);
    try {
      this.ws.terminate();
    } catch {
      // already closed
    }
  }
}

// Seat.wait_for_turn(), as the SDK has it: the socket's views until one awaits this seat.
async function waitForTurn(game, seat, control, after, onView) {
  let current = await seat.socket.nextView(after);
  if (onView) onView();
  while (current.status !== 'finished' && !myTurn(current, seat)) {
    current = await seat.socket.nextView(current);
  }
  return current;
}

// Seat.play(RandomBot()), as the SDK has it.
async function playSeat(game, seat, clock, control, firstView) {
  const draw = random[game.slot];
  seat.socket = new GameSocket(game, seat, control);
  await seat.socket.opened;
  let current = await waitForTurn(game, seat, control, null, firstView);
  while (current.status !== 'finished') {
    const action = current.legal_actions[Math.floor(draw() * current.legal_actions.length)];
    const key = crypto.randomUUID();
    const sent = now();
    const answer = await seat.socket.act(action, current.etag, key);
    if (answer.type === 'result') {
      stats.move(now() - sent, clock.confirmed());
      current = newer(current, answer.result.view);
    } else if ([409, 412].includes(answer.problem.status)) {
      // Not your turn (a simultaneous phase moved on under a seat that changed its mind),
      // game finished, stale: the SDK's Seat._move looks again.
      stats.refuse(answer.problem.status);
      let fresh = newer(current, seat.socket.latest);
      // Stale: the game changed since the view, and the socket brings the new one.
      if (answer.problem.status === 412 && fresh === current) fresh = await seat.socket.nextView(current);
      current = fresh !== current ? fresh : await view(game, seat, control);
    } else {
      throw new Error(`act: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    if (current.status !== 'finished' && !myTurn(current, seat)) {
      current = await waitForTurn(game, seat, control, current);
    }
  }
}

async function playOne(game, control, started) {
  const clock = new GameClock();
  let viewed = 0;
  const firstView = () => {
    viewed += 1;
    if (viewed === PLAYERS) started();
  };
  try {
    await Promise.all(game.seats.map((seat) => playSeat(game, seat, clock, control, firstView)));
    stats.gameOver(game.id, clock.moves);
  } catch (error) {
    if (!(error instanceof Stopped) && !control.stopping) throw error;
  } finally {
    for (const seat of game.seats) {
      if (seat.socket) seat.socket.close();
      seat.http.close();
    }
  }
}

async function teardown() {
  for (const socket of [...sockets]) socket.close();
  for (const agent of [...agents]) agent.destroy();
}

drive({
  slots,
  setup,
  playOne,
  teardown,
  stats,
  extra: () => ({ system: 'cardroom', game_type: gameType }),
}).then(
  // Exit once stdout is flushed: a pipe is written asynchronously, and exiting at once
  // could cut the result line short (a 10 s window's is well over 64 KB).
  () => process.stdout.write('', () => process.exit(0)),
  (error) => {
    console.error(error);
    process.exit(1);
  }
);
