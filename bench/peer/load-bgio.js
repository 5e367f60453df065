// The boardgame.io load: N concurrent 4-player Climb matches, each seat a boardgame.io
// `Client` (boardgame.io/client) with the SocketIO multiplayer transport, as a browser runs
// it: one socket.io connection per seat, the server pushes every new state (filtered by
// playerView) to every seat. A seat moves as soon as a pushed state says it is its turn,
// choosing at random among the moves `enumerate` lists.
//
//   node load-bgio.js --url http://127.0.0.1:8123 --games 16 [--seed 1] [--transports websocket]
//
// Setup goes through the lobby API (LobbyClient: create the match, join its four seats), as
// boardgame.io's lobby does; then the four clients connect (the handshake, a `sync` each).

const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Climb, enumerate, PLAYERS } = require('./game');
const { options, rng, now, Stats, GameClock, drive } = require('./load-common');

const opts = options(process.argv);
const url = opts.url;
const slots = Number(opts.games || 16);
const seed = Number(opts.seed || 1);
const socketOpts = opts.transports ? { transports: opts.transports.split(',') } : {};
const stats = new Stats();
const lobby = new LobbyClient({ server: url });
const live = new Set(); // games being played: torn down at "stop"
const pendingSince = new Map(); // seat's client -> its unconfirmed move: { at, what }
const STALLED_MS = 5000;
const random = [];

function countLobby() {
  stats.toServer('lobby');
  stats.fromServer('lobby');
}

async function setup(slot) {
  if (!random[slot]) random[slot] = rng(seed * 1000 + slot);
  const { matchID } = await lobby.createMatch(Climb.name, { numPlayers: PLAYERS });
  countLobby();
  const credentials = [];
  for (let p = 0; p < PLAYERS; p++) {
    const joined = await lobby.joinMatch(Climb.name, matchID, {
      playerID: String(p),
      playerName: `p${p}`,
    });
    countLobby();
    credentials.push(joined.playerCredentials);
  }
  return { slot, matchID, credentials };
}

function playOne({ slot, matchID, credentials }, control, started) {
  const draw = random[slot];
  const clock = new GameClock();
  const clients = [];
  return new Promise((resolve) => {
    let done = 0;
    let synced = 0;
    const game = {
      finished: false,
      finish() {
        game.finished = true;
        for (const client of clients) {
          client.stop();
          pendingSince.delete(client);
        }
        live.delete(game);
        resolve();
      },
    };
    live.add(game);
    for (let p = 0; p < PLAYERS; p++) {
      const playerID = String(p);
      const client = Client({
        game: Climb,
        numPlayers: PLAYERS,
        matchID,
        playerID,
        credentials: credentials[p],
        multiplayer: SocketIO({ server: url, socketOpts }),
        debug: false,
      });
      clients.push(client);
      let pending = null; // { stateID, at }: a move sent, not yet confirmed
      let actedOn = -1; // the state id this seat last moved on
      let over = false;
      let first = true;
      client.subscribe((state) => {
        if (!state || over || control.stopping) return;
        if (first) {
          first = false;
          synced += 1;
          if (synced === PLAYERS) started();
        }
        const stateID = state._stateID;
        if (pending !== null && stateID > pending.stateID) {
          stats.move(now() - pending.at, clock.confirmed());
          pending = null;
          pendingSince.delete(client);
        }
        if (state.ctx.gameover !== undefined) {
          over = true;
          if (p === 0) stats.gameOver(matchID, clock.moves);
          done += 1;
          if (done === PLAYERS) game.finish();
          return;
        }
        if (state.ctx.currentPlayer !== playerID || pending !== null || actedOn === stateID) return;
        const moves = enumerate(state.G, state.ctx, playerID);
        if (moves.length === 0) {
          stats.problem('no-move', `${matchID} seat ${playerID} at ${stateID}`);
          return;
        }
        const choice = moves[Math.floor(draw() * moves.length)];
        actedOn = stateID;
        pending = { stateID, at: now() };
        pendingSince.set(client, {
          at: pending.at,
          what: `${matchID} seat ${playerID} sent ${choice.move} on state ${stateID}`,
        });
        // Not from inside the store's notification: as a UI would, on the next tick.
        // Not if the game was finished (its clients stopped) meanwhile: a stopped client has
        // no socket to send on.
        setImmediate(() => {
          if (!game.finished) client.moves[choice.move](...choice.args);
        });
      });
      client.start();
      const socket = client.transport.socket;
      socket.onAny((event) => stats.fromServer(event));
      socket.onAnyOutgoing((event) => stats.toServer(event));
      socket.on('connect_error', (error) => stats.problem('connect_error', error.message));
    }
    if (control.stopping) game.finish();
  });
}

async function teardown() {
  for (const game of [...live]) game.finish();
}

// Moves sent and never confirmed (the server refused or lost them): a seat that waits for
// one waits forever, so the figures would be those of fewer games.
function extra() {
  const at = now();
  const stalled = [];
  for (const [client, { at: since, what }] of pendingSince) {
    if (at - since <= STALLED_MS) continue;
    const state = client.getState();
    const where = state ? `, the client is at state ${state._stateID}` : '';
    stalled.push(`${what}${where}, connected ${client.transport.isConnected}`);
  }
  for (const detail of stalled) stats.problem('moves unconfirmed after 5 s', detail);
  return { system: 'bgio', stalled: stalled.length };
}

drive({ slots, setup, playOne, teardown, stats, extra }).then(
  // Exit once stdout is flushed: a pipe is written asynchronously, and exiting at once
  // could cut the result line short (a 10 s window's is well over 64 KB).
  () => process.stdout.write('', () => process.exit(0)),
  (error) => {
    console.error(error);
    process.exit(1);
  }
);
