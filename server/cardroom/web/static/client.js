// cardroom's HTTP API for the browser: a small client with no dependencies (docs/web.md).
//
//   import { CardroomClient, Problem } from "/web/client.js";
//   const api = new CardroomClient();                     // same origin; or new CardroomClient(origin)
//   const game = await api.createGame({ gameType: "mr-toast", players: 2, bots: [{ seat: 1, policy: "greedy" }] });
//   const { token } = await api.join(game.id, "Ann");     // keep the token: it is shown once
//   let view = await api.view(game.id, token);            // your hand, to_act, legal_actions…
//   const answer = await api.act(game.id, token, view.legal_actions[0]);
//   for await (const page of api.follow(game.id, { token, after: answer.view.last_seq })) { … }
//   const socket = api.socket(game.id, { token, eventsAfter: 0 });  // the cheapest way to play
//   for await (const { view, events } of socket.updates()) { … }   // each newer view, once
//   await socket.act(view.legal_actions[0]);      // answered on the socket; updates() gets it too
//
// Every method returns the parsed JSON body the API documents (see /docs). A refusal throws a
// Problem carrying the RFC 9457 fields (status, type, detail, rule, field).

/** An RFC 9457 problem answer (status ≥ 400). */
export class Problem extends Error {
  constructor(status, body) {
    const detail = (body && (body.detail || body.title)) || `HTTP ${status}`;
    super(detail);
    this.name = "Problem";
    this.status = status;
    this.body = body || {};
    this.type = this.body.type || "about:blank";
    this.title = this.body.title || "";
    this.detail = this.body.detail || "";
    this.rule = this.body.rule || null;
    this.field = this.body.field || null;
  }

  /** The last part of the problem type: "illegal-action", "not-your-turn", … */
  get slug() {
    return this.type.split("/").pop();
  }
}

const DEFAULT_WAIT = 25;

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A fresh Idempotency-Key. */
export function newKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

export class CardroomClient {
  /**
   * @param {string} baseUrl  the server's origin ("" for the page's own)
   * @param {{fetch?: typeof fetch}} options  a fetch to use instead of the global one
   */
  constructor(baseUrl = "", { fetch: fetchImpl } = {}) {
    this.baseUrl = baseUrl.replace(/\/$/, "");
    this.fetch = fetchImpl || globalThis.fetch.bind(globalThis);
    /** Server time minus this machine's, in seconds (from the Date of the latest answer). */
    this.clockOffset = 0;
  }

  /** The server's current Unix time, as best known: compare with a view's `deadline`. */
  serverNow() {
    return Date.now() / 1000 + this.clockOffset;
  }

  async request(method, path, { token = null, body, query, headers = {}, signal } = {}) {
    const url = new URL(this.baseUrl + path, globalThis.location?.href);
    for (const [name, value] of Object.entries(query || {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const sent = { Accept: "application/json", ...headers };
    if (token) sent.Authorization = `Bearer ${token}`;
    if (body !== undefined) sent["Content-Type"] = "application/json";
    const started = Date.now();
    const response = await this.fetch(url, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      signal,
    });
    const date = response.headers.get("Date");
    if (date) {
      const midpoint = (started + Date.now()) / 2;
      this.clockOffset = (Date.parse(date) + 500 - midpoint) / 1000; // Date has whole seconds
    }
    const text = await response.text();
    let parsed = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { detail: text };
      }
    }
    if (!response.ok) throw new Problem(response.status, parsed);
    return parsed;
  }

  /** GET /v1/game-types → the games: players, options (defaults, secret flag), bot policies. */
  async gameTypes() {
    return (await this.request("GET", "/v1/game-types")).game_types;
  }

  /**
   * POST /v1/games → the new game's summary.
   * @param {{gameType: string, players: number, options?: object, seed?: number|null,
   *          bots?: {seat: number, policy: string}[]}} settings
   */
  async createGame({ gameType, players, options = {}, seed = null, bots = [] }) {
    const body = { game_type: gameType, players, options, bots };
    if (seed !== null && seed !== undefined) body.seed = seed;
    return this.request("POST", "/v1/games", { body });
  }

  /** GET /v1/games → {games, next_cursor}; filter by status ("waiting"…) and gameType. */
  async listGames({ status, gameType, limit, cursor } = {}) {
    return this.request("GET", "/v1/games", {
      query: { status, game_type: gameType, limit, cursor },
    });
  }

  /** GET /v1/games/{id} → the public summary (seed and secret options once finished). */
  async game(gameId) {
    return this.request("GET", `/v1/games/${encodeURIComponent(gameId)}`);
  }

  /**
   * POST /v1/games/{id}/join → {game_id, seat, token, status}. Keep the token. In a rematch,
   * `token` (yours in the finished game) takes the seat kept for you.
   */
  async join(gameId, name, seat = null, token = null) {
    const body = { name };
    if (seat !== null && seat !== undefined) body.seat = seat;
    return this.request("POST", `/v1/games/${encodeURIComponent(gameId)}/join`, { body, token });
  }

  /** POST /v1/games/{id}/rematch → the rematch's summary: the same for every seat that asks. */
  async rematch(gameId, token) {
    return this.request("POST", `/v1/games/${encodeURIComponent(gameId)}/rematch`, { token });
  }

  /** POST /v1/games/{id}/back → your view: the turn clock no longer counts you away. */
  async comeBack(gameId, token) {
    return this.request("POST", `/v1/games/${encodeURIComponent(gameId)}/back`, { token });
  }

  /** GET /v1/games/{id}/replay → a finished game, every step, every hand face up. */
  async replay(gameId) {
    return this.request("GET", `/v1/games/${encodeURIComponent(gameId)}/replay`);
  }

  /** GET /v1/games/{id}/view → your view (token) or a spectator's (no token). */
  async view(gameId, token = null, { signal } = {}) {
    return this.request("GET", `/v1/games/${encodeURIComponent(gameId)}/view`, { token, signal });
  }

  /**
   * POST /v1/games/{id}/actions → {version, events, view}.
   * Sends an Idempotency-Key, and retries once with the same key when the answer is lost
   * (network error) or the store is briefly unavailable (503): the action applies once.
   */
  async act(gameId, token, action, { idempotencyKey = newKey(), ifMatch = null } = {}) {
    const headers = { "Idempotency-Key": idempotencyKey };
    if (ifMatch) headers["If-Match"] = `"${ifMatch}"`;
    const path = `/v1/games/${encodeURIComponent(gameId)}/actions`;
    try {
      return await this.request("POST", path, { token, body: action, headers });
    } catch (error) {
      const retryable = !(error instanceof Problem) || error.status === 503;
      if (!retryable) throw error;
      await sleep(1000);
      return this.request("POST", path, { token, body: action, headers });
    }
  }

  /** GET /v1/games/{id}/events → {events, last_seq}; `wait` holds it until an event (≤ 30 s). */
  async events(gameId, { token = null, after = 0, wait = 0, limit, signal } = {}) {
    return this.request("GET", `/v1/games/${encodeURIComponent(gameId)}/events`, {
      token,
      signal,
      query: { after, wait, limit },
    });
  }

  /**
   * The seat's game socket (a WebSocket, GET /v1/games/{id}/socket): the server sends the
   * view (and, with `eventsAfter`, the events since the last one) each time the game changes,
   * and answers actions on it. Returns a GameSocket; see its `updates()` and `act()`.
   */
  socket(gameId, { token = null, eventsAfter = null } = {}) {
    const base = new URL(this.baseUrl || "/", globalThis.location?.href);
    base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
    base.pathname = `${base.pathname.replace(/\/$/, "")}/v1/games/${encodeURIComponent(gameId)}/socket`;
    return new GameSocket(base.toString(), { token, eventsAfter });
  }

  /**
   * Follow a game: an async iterator of event pages ({events, last_seq}) from the long-poll,
   * each page yielded as soon as it arrives. Network errors and 5xx answers are retried with
   * a growing pause; a 4xx (the game expired, a wrong token) ends it by throwing. Stop it
   * with an AbortSignal (or by leaving the for-await loop).
   */
  async *follow(gameId, { token = null, after = 0, wait = DEFAULT_WAIT, signal } = {}) {
    let cursor = after;
    let pause = 1000;
    while (!signal?.aborted) {
      let page;
      try {
        page = await this.events(gameId, { token, after: cursor, wait, signal });
      } catch (error) {
        if (signal?.aborted) return;
        if (error instanceof Problem && error.status < 500 && error.status !== 429) throw error;
        await sleep(pause, signal);
        pause = Math.min(pause * 2, 15000);
        continue;
      }
      pause = 1000;
      if (page.last_seq > cursor || page.events.length) {
        cursor = page.last_seq;
        yield page;
      }
    }
  }
}

function bySeq(events) {
  return events.sort((a, b) => a.seq - b.seq);
}

/**
 * One open game socket. `updates()` yields {view, events} each time the game changes: the
 * views the server sends and the view of each answer to `act()` (the server does not send
 * that one again), newest only, each once (see `offer`). `act()` sends an action with an
 * Idempotency-Key (`id`) and resolves with the answer the REST API gives ({version, events,
 * view}) or throws its Problem. `closed` resolves when the socket closes ({code, opened}:
 * whether it ever opened). Reopen with a new GameSocket.
 */
export class GameSocket {
  constructor(url, { token = null, eventsAfter = null } = {}) {
    this.queue = [];
    this.newest = null; // the last view queued for updates()
    this.withEvents = eventsAfter !== null && eventsAfter !== undefined;
    this.eventsAfter = this.withEvents ? eventsAfter : 0;
    this.seen = new Set(); // the seq of every event queued
    this.unsent = []; // events that came with an older view, for the next update
    this.waiting = null;
    this.answers = new Map();
    this.opened = false;
    this.ws = new WebSocket(url);
    this.closed = new Promise((resolve) => {
      this.ws.addEventListener("close", (event) => {
        for (const [, settle] of this.answers) settle.reject(new Error("the game socket closed"));
        this.answers.clear();
        this.wake();
        resolve({ code: event.code, opened: this.opened });
      });
    });
    this.ws.addEventListener("open", () => {
      this.opened = true;
      const hello = { type: "hello" };
      if (token) hello.token = token;
      if (eventsAfter !== null && eventsAfter !== undefined) hello.events_after = eventsAfter;
      this.ws.send(JSON.stringify(hello));
    });
    this.ws.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
  }

  receive(message) {
    const settle = message.id !== undefined && message.id !== null ? this.answers.get(message.id) : null;
    if (settle) {
      this.answers.delete(message.id);
      if (message.type === "result") {
        settle.resolve(message.result);
        if (message.result?.view) this.offer(message.result.view, message.result.events, false);
      } else settle.reject(new Problem(message.problem?.status || 500, message.problem));
    } else if (message.type === "view") {
      this.offer(message.view, message.events, true);
    } else if (message.type === "problem") {
      this.problem = new Problem(message.problem?.status || 500, message.problem);
    }
    this.wake();
  }

  /**
   * Queue a view for updates() if it is newer than the last one queued: a higher `version`,
   * or the same with a higher `last_seq` (an answer and a pushed view may cross on the wire).
   * A view the server pushes with the same version and `last_seq` but another `etag` is
   * newer too: a write that adds no event (a finished game's rematch named). Each event is
   * queued once (the server sends an action's events again with its next view), in `seq`
   * order; one that came with an older view goes with the next update.
   */
  offer(view, events, pushed) {
    const fresh = [];
    for (const event of this.withEvents ? events || [] : []) {
      if (event.seq <= this.eventsAfter || this.seen.has(event.seq)) continue;
      this.seen.add(event.seq);
      fresh.push(event);
    }
    const last = this.newest;
    const newer =
      !last ||
      view.version > last.version ||
      (view.version === last.version &&
        (view.last_seq > last.last_seq || (pushed && view.last_seq === last.last_seq && view.etag !== last.etag)));
    const queued = this.queue[this.queue.length - 1];
    if (newer) {
      this.newest = view;
      this.queue.push({ view, events: bySeq([...this.unsent, ...fresh]) });
      this.unsent = [];
    } else if (queued) {
      queued.events = bySeq([...queued.events, ...fresh]);
    } else {
      this.unsent.push(...fresh);
    }
  }

  wake() {
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) waiting();
  }

  /** {view, events} each time the game changes (the results of `act()` included), newest
   * view only and each once, until the socket closes. */
  async *updates() {
    for (;;) {
      while (this.queue.length) yield this.queue.shift();
      if (this.ws.readyState >= WebSocket.CLOSING) {
        if (this.problem) throw this.problem;
        return;
      }
      await new Promise((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  /** Send an action; its answer, or its Problem. */
  act(action, { idempotencyKey = newKey(), ifMatch = null } = {}) {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== WebSocket.OPEN) {
        reject(new Error("the game socket is not open"));
        return;
      }
      this.answers.set(idempotencyKey, { resolve, reject });
      const message = { type: "act", id: idempotencyKey, action };
      if (ifMatch) message.if_match = ifMatch;
      this.ws.send(JSON.stringify(message));
    });
  }

  get open() {
    return this.ws.readyState === WebSocket.OPEN;
  }

  close() {
    this.ws.close();
  }
}
