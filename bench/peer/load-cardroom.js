// The cardroom load: N concurrent 4-player games, each seat an HTTP client of its own (one
// keep-alive connection, as the SDK's `requests.Session` keeps one) that follows its game
// exactly as the SDK's `Seat.play` with a random bot does (sdk/cardroom_sdk/client.py):
//
//   wait_for_turn: the first time, catch up (GET …/events?after=N&limit=1000 until nothing
//   new); then GET …/view; while it is not this seat's turn (or the game is not finished),
//   hold GET …/events?after=<last seq>&wait=30 and, when something happened, GET …/view
//   again. Then POST …/actions with one of the view's legal_actions (chosen at random) and
//   an Idempotency-Key, and wait for the turn again.
//
// The same requests, headers and retries as the SDK (bench/peer/README.md; the Python side
// checks the mix against the SDK itself: "SDK check"), without Python's per-request cost.
//
//   node load-cardroom.js --url http://127.0.0.1:8000 --games 16 [--game-type exact-plays]
//        [--seed 1] [--idempotency on|off]

const http = require('http');
const crypto = require('crypto');
const { options, rng, now, Stats, GameClock, drive } = require('./load-common');

const opts = options(process.argv);
const base = new URL(opts.url);
const slots = Number(opts.games || 16);
const seed = Number(opts.seed || 1);
const gameType = opts['game-type'] || 'exact-plays';
const idempotency = (opts.idempotency || 'on') === 'on';
const PLAYERS = 4;
const MAX_WAIT = 30;
const RETRIES = 3; // the SDK's defaults: 3 retries after 0.2 s * 2**n
const BACKOFF_MS = 200;
const RETRY_STATUSES = new Set([502, 503, 504]);
const stats = new Stats();
const agents = new Set();
const random = [];
let nextSeed = seed * 1_000_000;

class Stopped extends Error {}

// One seat's HTTP client: its own agent, so its own keep-alive connection.
class Http {
  constructor() {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
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
        lastSeq: 0,
        synced: false,
        actedVersion: null,
      })),
    };
  } catch (error) {
    for (const seat of seats) seat.close();
    throw error;
  }
}

const path = (id, rest) => `/v1/games/${encodeURIComponent(id)}/${rest}`;
const myTurn = (view, seat) =>
  view.you && view.you.seat === seat.seat && view.to_act.includes(seat.seat) && view.legal_actions.length > 0;

async function events(game, seat, control, wait, limit) {
  const query = new URLSearchParams({ after: String(seat.lastSeq) });
  if (wait) query.set('wait', wait === MAX_WAIT ? '30.0' : String(Math.round(wait * 1000) / 1000));
  if (limit !== undefined) query.set('limit', String(limit));
  const answer = await seat.http.request(wait ? 'events (wait)' : 'events', 'GET', `${path(game.id, 'events')}?${query}`, {
    token: seat.token,
    control,
  });
  const batch = expect(answer, [200], 'events');
  seat.lastSeq = Math.max(seat.lastSeq, batch.last_seq);
  return batch;
}

async function view(game, seat, control) {
  const answer = await seat.http.request('view', 'GET', path(game.id, 'view'), {
    token: seat.token,
    control,
  });
  return expect(answer, [200], 'view');
}

// Seat.wait_for_turn(), as the SDK has it.
async function waitForTurn(game, seat, control, onView) {
  if (!seat.synced) {
    for (;;) {
      const before = seat.lastSeq;
      const batch = await events(game, seat, control, 0, 1000);
      if (batch.last_seq <= before) break;
    }
    seat.synced = true;
  }
  let current = await view(game, seat, control);
  if (onView) onView();
  for (;;) {
    const answered = current.to_act.length > 1 && current.version === seat.actedVersion;
    if (current.status === 'finished' || (myTurn(current, seat) && !answered)) return current;
    let wait = MAX_WAIT;
    let timed = false;
    if (current.deadline !== null && current.deadline !== undefined) {
      const until = Math.max(current.deadline - Date.now() / 1000 + 0.05, 0.5);
      if (until < wait) {
        wait = until;
        timed = true;
      }
    }
    const before = seat.lastSeq;
    const batch = await events(game, seat, control, wait);
    if (batch.last_seq > before || timed) current = await view(game, seat, control);
  }
}

// Seat.play(RandomBot()), as the SDK has it.
async function playSeat(game, seat, clock, control, firstView) {
  const draw = random[game.slot];
  let current = await waitForTurn(game, seat, control, firstView);
  while (current.status !== 'finished') {
    const action = current.legal_actions[Math.floor(draw() * current.legal_actions.length)];
    const headers = idempotency ? { 'Idempotency-Key': crypto.randomUUID() } : {};
    const sent = now();
    const answer = await seat.http.request('act', 'POST', path(game.id, 'actions'), {
      token: seat.token,
      json: action,
      headers,
      control,
    });
    if (answer.status === 200) {
      stats.move(now() - sent, clock.confirmed());
      const result = answer.json;
      seat.actedVersion = result.view ? result.view.version : result.version;
      for (const event of result.events || []) seat.lastSeq = Math.max(seat.lastSeq, event.seq);
    } else if ([409, 412].includes(answer.status)) {
      // Not your turn (a simultaneous phase moved on under a seat that changed its mind),
      // game finished, stale: the SDK's Seat.play looks again.
      stats.refuse(answer.status);
    } else {
      throw new Error(`act: ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    current = await waitForTurn(game, seat, control);
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
    for (const seat of game.seats) seat.http.close();
  }
}

async function teardown() {
  for (const agent of [...agents]) agent.destroy();
}

drive({
  slots,
  setup,
  playOne,
  teardown,
  stats,
  extra: () => ({ system: 'cardroom', game_type: gameType, idempotency }),
}).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  }
);
