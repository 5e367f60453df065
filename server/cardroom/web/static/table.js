// The table: /play/{game} (your seat, or a free one to take) and /watch/{game} (a spectator).
// It shows the view the API gives, offers exactly the view's legal_actions, follows the game
// on its game socket (the events long-poll where WebSockets do not get through) and tells
// what happened in words.

import { CardroomClient, Problem, newKey } from "./client.js";
import { botName, botsOf, dealNotice, fill, h, listing, midSentence, plural, ruleRef } from "./dom.js";
import { gameModule, loadGameModule } from "./games/index.js";
import { forgetSeat, loadSeat, savedName, saveName, saveSeat } from "./seats.js";

const api = new CardroomClient();
const LOG_LIMIT = 200;
const HISTORY_ON_LOAD = 60;

const [, mode, rawId] = window.location.pathname.split("/");
const gameId = decodeURIComponent(rawId || "");
const watching = mode === "watch";
const invitedSeat = (() => {
  const text = new URLSearchParams(window.location.search).get("seat");
  return text !== null && /^\d{1,2}$/.test(text) ? Number(text) : null;
})();

const state = {
  seat: watching ? null : loadSeat(gameId), // {seat, token, name} or null
  summary: null,
  view: null,
  game: gameModule(null),
  log: [], // [{seq, text}], newest last
  seen: new Set(),
  lastSeq: 0,
  selection: new Set(),
  busy: false,
  problem: null,
  note: null,
  follower: null,
  socket: null, // the open game socket, if any
  noSockets: false, // a socket never opened here: follow over HTTP
  countdownTimer: null,
  secretOptions: null, // names of the options shown as "stacked" until the game ends
  gameTypes: null, // GET /v1/game-types, once read: the rules' address, the secret options
  shownStatus: null, // the status the page last showed: the end of the game is brought into view
  rematchTimer: null, // a spectator of a finished game looks for its rematch
  revealOpen: false, // the end's "Details for developers" fold, kept open across renders
};

const $ = (id) => document.getElementById(id);

// --- words --------------------------------------------------------------------------------

function seatName(seat) {
  const entry = state.view?.seats?.[seat] || state.summary?.seats?.[seat];
  return entry?.name || `Seat ${seat + 1}`;
}

const ctx = {
  get me() {
    return state.seat ? state.seat.seat : null;
  },
  get view() {
    return state.view;
  },
  name(seat) {
    if (seat === null || seat === undefined) return "nobody";
    return seat === ctx.me ? "you" : seatName(seat);
  },
  Name(seat) {
    const text = ctx.name(seat);
    return text.charAt(0).toUpperCase() + text.slice(1);
  },
};

function problemText(error) {
  if (error instanceof Problem) return error.detail || error.title || `HTTP ${error.status}`;
  return "The server cannot be reached. Check your connection; the page keeps trying.";
}

function describeEvent(event) {
  switch (event.type) {
    case "game_created":
      return `The table is set for ${event.players} players.`;
    case "seat_taken":
      return `${event.seat === ctx.me ? "You" : event.name || seatName(event.seat)} sat down in seat ${event.seat + 1}.`;
    case "game_started": {
      // A game whose first turn starts without an event (Mr Toast) says who starts.
      const first = state.view && state.game.whoStarts ? state.game.whoStarts(state.view) : null;
      const starts = first === null ? "" : ` ${ctx.Name(first)} ${first === ctx.me ? "start" : "starts"}.`;
      return `Every seat is taken: the game begins.${starts}`;
    }
    case "timed_out": {
      const you = event.seat === ctx.me;
      const away = event.away ? ` ${ctx.Name(event.seat)} ${you ? "are" : "is"} now away.` : "";
      return `Time ran out for ${ctx.name(event.seat)}: the server moved for ${you ? "you" : "them"}.${away}`;
    }
    case "seat_back":
      return `${ctx.Name(event.seat)} ${event.seat === ctx.me ? "are" : "is"} back.`;
    case "game_over": {
      const winners = event.result?.winners ?? event.winners ?? [];
      return `Game over: ${winnersText(winners)}.`;
    }
    default:
      return state.game.describe(event, ctx);
  }
}

function winnersText(winners) {
  if (!winners.length) return "no winner";
  if (winners.length === 1) return winners[0] === ctx.me ? "you win" : `${seatName(winners[0])} wins`;
  return `${listing(winners.map((seat) => ctx.name(seat)))} share the win`;
}

// --- events -------------------------------------------------------------------------------

function addEvents(events) {
  for (const event of events) {
    if (state.seen.has(event.seq)) continue;
    state.seen.add(event.seq);
    state.lastSeq = Math.max(state.lastSeq, event.seq);
    const text = describeEvent(event);
    if (text) state.log.push({ seq: event.seq, text });
  }
  state.log.sort((a, b) => a.seq - b.seq);
  if (state.log.length > LOG_LIMIT) state.log.splice(0, state.log.length - LOG_LIMIT);
}

/** Keep the newer of two views (a long-poll answer may arrive after an action's answer). */
function accept(view) {
  const current = state.view;
  if (current && (view.version < current.version || (view.version === current.version && view.last_seq < current.last_seq))) {
    return false;
  }
  if (!current || view.version !== current.version) state.selection.clear();
  state.view = view;
  state.game = gameModule(view.game_type);
  return true;
}

/** The game types (read once): where each game's rules are, which options are secret. */
async function loadGameTypes() {
  if (state.gameTypes) return state.gameTypes;
  try {
    state.gameTypes = await api.gameTypes();
  } catch {
    // the rules link and the reveal wait for the next try
  }
  return state.gameTypes || [];
}

function gameTypeInfo(gameType) {
  return (state.gameTypes || []).find((entry) => entry.game_type === gameType) || null;
}

/** The game's title: its module's, else the game type's (GET /v1/game-types), else its type. */
function gameTitle(gameType) {
  return state.game.title || gameTypeInfo(gameType)?.title || gameType;
}

/** The summary once the game is over (seed and secret options shown), and which options
 * were secret (from the game type). */
async function loadReveal() {
  if (state.summary?.status === "finished" && state.secretOptions) return;
  try {
    const [summary] = await Promise.all([api.game(gameId), loadGameTypes()]);
    state.summary = summary;
    const type = gameTypeInfo(summary.game_type);
    state.secretOptions = (type?.options || []).filter((option) => option.secret).map((option) => option.name);
  } catch {
    // the reveal is shown once the summary can be read
  }
}

/** The game's rules page (the game type's rules_url), or null. */
function rulesUrl(gameType) {
  const url = gameTypeInfo(gameType)?.rules_url || "";
  return /^(\/|https?:\/\/)/.test(url) ? url : null;
}

/** "How to play": the game's rules page; and each small rule reference ("(rule MT-7)")
 * links to its ruling there (the rules pages give each ruling an id: #mt-7). */
function renderRulesLink(gameType) {
  const url = rulesUrl(gameType);
  const row = $("rules");
  if (!url) {
    row.hidden = true;
    return;
  }
  for (const ref of document.querySelectorAll(".rule-ref[data-rules]:not([data-linked])")) {
    const rules = ref.dataset.rules.split(" ");
    const links = rules.map((rule) => h("a", { href: `${url}#${rule.toLowerCase()}`, target: "_blank", rel: "noopener" }, rule));
    const joined = links.flatMap((link, index) => [index === 0 ? "" : index === links.length - 1 ? " and " : ", ", link]);
    fill(ref, `(rule${rules.length === 1 ? "" : "s"} `, joined, ")");
    ref.dataset.linked = "true";
  }
  const anchor = $("rules-link");
  anchor.href = url;
  const name = gameTitle(gameType) || "this game";
  anchor.textContent = `How to play ${name}`;
  row.hidden = false;
}

async function refreshView() {
  try {
    accept(await api.view(gameId, state.seat?.token));
  } catch (error) {
    state.problem = { detail: problemText(error) };
  }
  if (state.view?.status === "finished") await loadReveal();
  render();
}

async function follow() {
  state.follower?.abort();
  state.socket?.close();
  state.socket = null;
  const controller = new AbortController();
  state.follower = controller;
  if ("WebSocket" in window && !state.noSockets) {
    await followOnSocket(controller);
    return;
  }
  try {
    for await (const page of api.follow(gameId, { token: state.seat?.token, after: state.lastSeq, signal: controller.signal })) {
      addEvents(page.events);
      if (page.events.some((event) => event.type === "seat_taken") && state.view?.status === "waiting") {
        state.summary = await api.game(gameId);
      }
      await refreshView();
      if (state.view?.status === "finished") break;
    }
  } catch (error) {
    if (!controller.signal.aborted) {
      state.problem = { detail: `Stopped following the game: ${problemText(error)}` };
      render();
    }
  }
}

/** Views and events as the game socket sends them; a broken socket is opened again. */
async function followOnSocket(controller) {
  const socket = api.socket(gameId, { token: state.seat?.token, eventsAfter: state.lastSeq });
  state.socket = socket;
  try {
    for await (const { view, events } of socket.updates()) {
      if (controller.signal.aborted) break;
      // Our own move's answer comes here too. While a move is sent, submit() renders once its
      // answer is in; after that, a view and events already shown are not rendered again.
      const shown = { etag: state.view?.etag, events: state.seen.size };
      addEvents(events);
      if (events.some((event) => event.type === "seat_taken") && state.view?.status === "waiting") {
        state.summary = await api.game(gameId);
      }
      accept(view);
      const changed = state.view?.etag !== shown.etag || state.seen.size !== shown.events;
      if (state.view?.status === "finished") {
        socket.close();
        if (changed && !state.busy) {
          await loadReveal();
          render();
        }
        return;
      }
      if (changed && !state.busy) render();
    }
  } catch (error) {
    // The server refused the socket's hello (the game expired, the token is not this game's).
    if (!controller.signal.aborted) {
      state.problem = { detail: `Stopped following the game: ${problemText(error)}` };
      render();
    }
    return;
  }
  const { opened } = await socket.closed;
  if (controller.signal.aborted) return;
  if (!opened) state.noSockets = true; // WebSockets do not get through: the long-poll then
  else await new Promise((resolve) => setTimeout(resolve, 1000));
  if (!controller.signal.aborted) follow();
}

window.addEventListener("pagehide", () => {
  state.follower?.abort();
  state.socket?.close();
});

// --- acting -------------------------------------------------------------------------------

async function submit(action) {
  if (state.busy || !state.seat) return;
  state.busy = true;
  state.problem = null;
  render();
  try {
    const answer = await act(action);
    addEvents(answer.events || []);
    if (answer.view) accept(answer.view);
    if (state.view?.status === "finished") await loadReveal();
  } catch (error) {
    state.problem =
      error instanceof Problem
        ? { detail: error.detail || error.title, rule: error.rule, title: error.title }
        : { detail: problemText(error) };
    try {
      accept(await api.view(gameId, state.seat.token));
    } catch {
      // shown on the next update
    }
  } finally {
    state.busy = false;
    render();
  }
}

/** An action on the game socket when it is open, else over HTTP; a socket that breaks before
 * the answer came is followed by the same action over HTTP with the same Idempotency-Key, so
 * it is applied once. */
async function act(action) {
  const idempotencyKey = newKey();
  if (state.socket?.open) {
    try {
      return await state.socket.act(action, { idempotencyKey });
    } catch (error) {
      if (error instanceof Problem) throw error;
    }
  }
  return api.act(gameId, state.seat.token, action, { idempotencyKey });
}

async function playAgain(button) {
  // The rematch (POST …/rematch) is one game for every seat that asks: the friends at this
  // table land at the same new one, each in the seat kept for their token.
  button.disabled = true;
  try {
    const game = await api.rematch(gameId, state.seat.token);
    if (!loadSeat(game.id)) {
      const joined = await api.join(game.id, state.seat.name, state.seat.seat, state.seat.token);
      saveSeat(game.id, { seat: joined.seat, token: joined.token, name: state.seat.name, gameType: game.game_type });
    }
    window.location.assign(`/play/${encodeURIComponent(game.id)}`);
  } catch (error) {
    state.problem = { detail: problemText(error) };
    button.disabled = false;
    render();
  }
}

async function comeBack(button) {
  button.disabled = true;
  try {
    accept(await api.comeBack(gameId, state.seat.token));
  } catch (error) {
    state.problem = { detail: problemText(error) };
  }
  button.disabled = false;
  render();
}

function renderAway(view) {
  const section = $("away");
  const me = ctx.me;
  const away = me !== null && view.status === "active" && view.clock?.seats?.[me]?.away;
  if (!away) {
    section.hidden = true;
    return;
  }
  const button = h("button", { type: "button", class: "primary", id: "come-back", dataset: { focusKey: "come-back" } }, "I'm back");
  button.addEventListener("click", () => comeBack(button));
  fill(
    section,
    h("h2", { id: "away-heading" }, "You are away"),
    h("p", {}, "Your time ran out turn after turn, so the game stopped waiting for you. Come back to play your turns again."),
    button,
  );
  section.hidden = false;
}

// --- joining ------------------------------------------------------------------------------

function renderJoin() {
  const section = $("join");
  const free = state.summary.seats.filter((seat) => !seat.taken);
  const invited = free.some((seat) => seat.seat === invitedSeat) ? invitedSeat : free[0]?.seat;
  const status = h("p", { class: "form-status", role: "status" });
  const seatChoice = h(
    "select",
    { id: "join-seat", name: "seat" },
    free.map((seat) => h("option", { value: String(seat.seat), selected: seat.seat === invited }, `Seat ${seat.seat + 1}`)),
  );
  const name = h("input", { id: "join-name", name: "name", type: "text", maxlength: "40", required: true, autocomplete: "nickname", value: savedName() });
  const form = h(
    "form",
    { class: "join-form" },
    h("div", { class: "option inline" }, h("label", { for: "join-name" }, "Your name"), name),
    h("div", { class: "option inline" }, h("label", { for: "join-seat" }, "Seat"), seatChoice),
    h("button", { type: "submit", class: "primary" }, "Sit down and play"),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosenName = name.value.trim();
    if (!chosenName) {
      status.textContent = "Type your name first.";
      name.focus();
      return;
    }
    form.querySelector("button").disabled = true;
    try {
      const joined = await api.join(gameId, chosenName, Number(seatChoice.value));
      saveName(chosenName);
      state.seat = { seat: joined.seat, token: joined.token, name: chosenName };
      saveSeat(gameId, { ...state.seat, gameType: state.summary.game_type });
      window.history.replaceState(null, "", `/play/${encodeURIComponent(gameId)}`);
      section.hidden = true;
      await enterTable();
    } catch (error) {
      const message = problemText(error);
      state.summary = await api.game(gameId).catch(() => state.summary);
      if (state.summary.status === "waiting" && state.summary.seats.some((seat) => !seat.taken)) {
        renderJoin(); // the seats as they are now
        $("join").querySelector(".form-status").textContent = message;
      } else {
        section.hidden = true; // every seat is taken meanwhile: watch
        await enterTable();
      }
    }
  });
  const title = gameTitle(state.summary.game_type);
  fill(
    section,
    h("h2", { id: "join-heading" }, `Take a seat at this ${title} game`),
    invitedSeat !== null && invited !== invitedSeat
      ? h("p", {}, `Seat ${invitedSeat + 1} has been taken meanwhile; here are the free ones.`)
      : null,
    h("p", {}, `Seated so far: ${listing(state.summary.seats.filter((seat) => seat.taken).map((seat) => seat.name)) || "nobody"}.`),
    dealNotice(state.summary.deal) ? h("p", { class: "note deal-notice" }, dealNotice(state.summary.deal)) : null,
    form,
    h("p", {}, h("a", { href: `/watch/${encodeURIComponent(gameId)}` }, "Just watch instead")),
  );
  section.hidden = false;
  $("table-heading").textContent = `${title}: an invitation`;
  setSkipLink("#join", "Skip to the seat form");
  renderRulesLink(state.summary.game_type);
  $("main").removeAttribute("aria-busy");
  document.body.dataset.ready = "join";
}

// --- rendering ----------------------------------------------------------------------------

function link(path) {
  return new URL(path, window.location.origin).href;
}

function copyControl(id, label, url) {
  const input = h("input", { id, type: "text", readonly: true, value: url, class: "link-field", dataset: { focusKey: `link:${id}` } });
  const button = h("button", { type: "button", "aria-label": `Copy the ${label}`, dataset: { focusKey: `copy:${id}` } }, "Copy");
  button.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(url);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Selected: copy it";
    }
  });
  return h("div", { class: "copy-row" }, h("label", { for: id }, label), h("div", { class: "copy-field" }, input, button));
}

function renderInvite(view) {
  const section = $("invite");
  const free = view.seats.filter((seat) => !seat.taken);
  fill(
    section,
    h("h2", { id: "invite-heading" }, free.length ? "Invite your friends" : "Share the game"),
    free.length
      ? h("p", {}, "Send each friend the link of a free seat. The game starts when every seat is taken.")
      : null,
    h(
      "div",
      { class: "invitations" },
      free.map((seat) => copyControl(`invite-${seat.seat}`, `Invitation link for seat ${seat.seat + 1}`, link(`/play/${encodeURIComponent(gameId)}?seat=${seat.seat}`))),
      copyControl("watch-link", "Spectator link (watch without a hand)", link(`/watch/${encodeURIComponent(gameId)}`)),
    ),
  );
  section.hidden = false;
}

/** The seats the game awaits that a bot which thinks plays (a search level, `thinks` in the
 * game type's `bots`): a bot seat, or an away seat when the game's `away_bot` option hands
 * away seats to such a bot. The server moves for it a moment after the move that handed it
 * the turn, so the table says it is thinking until then. */
function thinkingSeats(view) {
  if (view.status !== "active") return [];
  const thinkers = new Set(botsOf(gameTypeInfo(view.game_type)).filter((bot) => bot.thinks).map((bot) => bot.name));
  return (view.awaiting ?? view.to_act).filter((seat) => thinkers.has(serverBot(view, seat)));
}

/** The bot the server plays a seat with: the seat's own, or the `away_bot` of an away seat. */
function serverBot(view, seat) {
  const held = view.seats[seat];
  return held?.bot ?? (held?.away ? view.options?.away_bot ?? null : null);
}

/** "Ann (search bot) is thinking…", "Search bot and Ann (search bot) are thinking…": the
 * bot's kind is said unless its name says it already. */
function thinkingText(view, seats) {
  if (!seats.length) return "";
  const names = seats.map((seat) => {
    const name = seatName(seat);
    const kind = botName(serverBot(view, seat)).toLowerCase();
    return name.toLowerCase().includes(kind) ? name : `${name} (${kind})`;
  });
  return `${listing(names)} ${seats.length === 1 ? "is" : "are"} thinking…`;
}

function statusText(view) {
  if (view.status === "waiting") {
    const free = view.seats.filter((seat) => !seat.taken).map((seat) => `seat ${seat.seat + 1}`);
    return `Waiting for players: ${listing(free)} ${free.length === 1 ? "is" : "are"} free.`;
  }
  if (view.status === "finished") return "The game is over.";
  const phase = state.game.phaseText(view, ctx);
  // The bots that think are said apart: "… is thinking…" rather than "Waiting for …".
  const thinking = thinkingSeats(view);
  const awaited = (view.awaiting ?? view.to_act).filter((seat) => !thinking.includes(seat));
  let waiting;
  if (ctx.me !== null && view.legal_actions.length) {
    // The game's module may say what to do now (or that phaseText said it: "").
    const yourMove = state.game.yourMove ? state.game.yourMove(view, ctx) : "It's your move.";
    waiting = awaited.includes(ctx.me) ? yourMove : "You may still change your choice.";
    const others = awaited.filter((seat) => seat !== ctx.me);
    if (others.length) waiting += ` Also waiting for ${listing(others.map((seat) => ctx.name(seat)))}.`;
  } else {
    waiting = awaited.length ? `Waiting for ${listing(awaited.map((seat) => ctx.name(seat)))}.` : "";
  }
  return `${phase} ${waiting} ${thinkingText(view, thinking)}`.replace(/\s+/g, " ").trim();
}

/** The badge of a seat the game awaits: "your turn", "their turn", or while several seats
 * choose at once "choosing" (the game's module may have its own word: "to answer"). */
function awaitedWord(view, seat) {
  if (state.game.awaitedWord) return state.game.awaitedWord(view, seat, ctx);
  if (view.to_act.length > 1) return "choosing";
  return seat === ctx.me ? "your turn" : "their turn";
}

function renderSeats(view) {
  const section = $("seats");
  const awaited = new Set(view.awaiting ?? view.to_act);
  const toAct = new Set(view.to_act);
  const thinking = new Set(thinkingSeats(view));
  fill(
    section,
    h("h2", { id: "seats-heading" }, "Players"),
    h(
      "div",
      { class: "seat-list" },
      view.seats.map((seat) => {
        const badges = [];
        if (seat.seat === ctx.me) badges.push(h("span", { class: "badge you" }, "you"));
        if (seat.bot) badges.push(h("span", { class: "badge bot" }, `bot: ${seat.bot}`));
        if (!seat.taken) badges.push(h("span", { class: "badge free" }, seat.reserved ? "kept for its player" : "free seat"));
        if (seat.away) badges.push(h("span", { class: "badge away" }, "away"));
        if (thinking.has(seat.seat)) badges.push(h("span", { class: "badge awaited thinking" }, "thinking…"));
        else if (awaited.has(seat.seat)) badges.push(h("span", { class: "badge awaited" }, awaitedWord(view, seat.seat)));
        else if (toAct.has(seat.seat)) badges.push(h("span", { class: "badge to-act" }, "has chosen (may change it)"));
        const winner = view.result?.winners?.includes(seat.seat);
        if (winner) badges.push(h("span", { class: "badge winner" }, "winner"));
        const label = `Seat ${seat.seat + 1}: ${seat.name || "free"}${seat.seat === ctx.me ? " (you)" : ""}`;
        return h(
          "article",
          { class: ["seat", awaited.has(seat.seat) && "is-awaited", seat.seat === ctx.me && "is-you"], "aria-label": label, dataset: { seat: String(seat.seat) } },
          h("h3", {}, h("span", { class: "seat-number" }, `${seat.seat + 1}`), " ", seat.name || "Free seat", " ", badges),
          view.public ? state.game.seatDetails(view, seat.seat, ctx) : null,
        );
      }),
    ),
  );
  section.hidden = false;
}

function renderCentre(view) {
  const section = $("centre");
  fill(section, h("h2", { id: "centre-heading" }, "The table"), state.game.centre(view, ctx));
  section.hidden = false;
}

/** The legal actions as labelled choices, narrowed to the picked cards. */
function visibleGroups(view) {
  const groups = state.game.actionGroups(view, ctx);
  const picked = [...state.selection];
  return groups
    .map((group) => {
      const shown = [];
      const labels = new Set();
      for (const item of group.items) {
        if (picked.length && item.cards.length && !picked.every((id) => item.cards.includes(id))) continue;
        // Cards of one kind (two G3s) give actions that read the same: offer one of them.
        if (labels.has(item.label)) continue;
        labels.add(item.label);
        shown.push(item);
      }
      return { ...group, items: shown };
    })
    .filter((group) => group.items.length);
}

/** When cards are picked and no move uses them all (the moves that use cards all went), what
 * to say: which cards, why if the game's module knows (`whyNotTogether`), and how to undo. */
function unmatchedPicks(view, groups) {
  const byId = new Map((view.you?.hand || []).map((card) => [card.id, card]));
  const picked = [...state.selection].filter((id) => byId.has(id)).map((id) => byId.get(id));
  if (!picked.length || groups.some((group) => group.items.some((item) => item.cards.length))) return null;
  const why = state.game.whyNotTogether ? state.game.whyNotTogether(view, picked) : null;
  const cards = picked.length === 1 ? cardName(picked[0]) : `all the cards you picked (${listing(countedNames(picked))})`;
  return `No move uses ${cards}${why ? `: ${afterColon(why, view)}` : ""}. Clear the picked ${picked.length === 1 ? "card" : "cards"} to see every move.`;
}

/** The cards' names, each once: "No Way twice", "Recreation 2 3 times". */
function countedNames(cards) {
  const counts = new Map();
  for (const card of cards) counts.set(cardName(card), (counts.get(cardName(card)) || 0) + 1);
  return [...counts].map(([name, count]) => (count === 1 ? name : `${name} ${count === 2 ? "twice" : `${count} times`}`));
}

/** A module's reason said after "cards: ", in lower case unless it starts with a name (a
 * player's, a card's) that keeps its capital. */
function afterColon(text, view) {
  const names = [...(view.seats || []).map((seat) => seat.name), ...(view.you?.hand || []).map(cardName)];
  return midSentence(text, names);
}

function usableCards(view) {
  const ids = new Set();
  for (const group of state.game.actionGroups(view, ctx)) for (const item of group.items) for (const id of item.cards) ids.add(id);
  return ids;
}

function cardName(card) {
  return state.game.cardName ? state.game.cardName(card) : card.name || card.code;
}

/** Why the cards no legal action uses cannot be used now, grouped by reason: [{text, rule,
 * cards}], in the order of the hand. The game's module has the words (whyUnusable). */
function unusableReasons(view, hand, usable) {
  if (!state.game.whyUnusable) return [];
  const byText = new Map();
  for (const card of hand) {
    if (usable.has(card.id)) continue;
    const reason = state.game.whyUnusable(view, card, ctx);
    if (!reason) continue;
    if (!byText.has(reason.text)) byText.set(reason.text, { ...reason, cards: [] });
    byText.get(reason.text).cards.push(card);
  }
  return [...byText.values()];
}

function renderReasons(view, reasons, hand) {
  if (!reasons.length) return null;
  return h(
    "div",
    { class: "why-unusable" },
    h("h3", { class: "sub" }, reasons.length === 1 && reasons[0].cards.length === hand.length ? "Why you cannot use your cards now" : "Why some cards cannot be used now"),
    h(
      "ul",
      {},
      reasons.map((reason, index) => {
        const names = [...new Set(reason.cards.map(cardName))];
        const several = reason.cards.length > 1;
        let who = reason.cards.length === hand.length && several ? "All your cards" : listing(names);
        if (names.length === 1 && several) who = `${names[0]} (${plural(reason.cards.length, "card")})`;
        // Said of several cards: the module's words for several (`many`), or, before words
        // that speak of one card ("it"), "Each of …".
        let text = reason.text;
        if (several && reason.many) text = reason.many;
        else if (several && /\bit\b/i.test(text)) who = who === "All your cards" ? "Each of your cards" : `Each of ${who}`;
        return h("li", { id: `why-${index}` }, h("strong", {}, `${who}: `), afterColon(text, view), reason.rule ? [" ", ruleRef(reason.rule)] : null);
      }),
    ),
  );
}

function renderHand(view) {
  const section = $("hand");
  if (!view.you) {
    section.hidden = true;
    return;
  }
  const myMove = view.legal_actions.length && !state.busy;
  const usable = myMove ? usableCards(view) : new Set();
  const hand = state.game.sortHand(view.you.hand);
  const picked = [...state.selection].filter((id) => hand.some((card) => card.id === id));
  const reasons = myMove ? unusableReasons(view, hand, usable) : [];
  const reasonOf = new Map();
  reasons.forEach((reason, index) => reason.cards.forEach((card) => reasonOf.set(card.id, `why-${index}`)));
  fill(
    section,
    h("h2", { id: "hand-heading" }, `Your hand (${plural(hand.length, "card")})`),
    state.game.youDetails(view, ctx),
    hand.length
      ? h(
          "ul",
          { class: "hand card-row", "aria-label": "Your cards" },
          hand.map((card) => {
            const face = state.game.renderCard(card);
            if (reasonOf.has(card.id)) {
              face.setAttribute("aria-describedby", reasonOf.get(card.id));
              face.classList.add("unusable");
            }
            if (!usable.has(card.id)) return h("li", {}, face);
            const pressed = state.selection.has(card.id);
            const button = h(
              "button",
              {
                type: "button",
                class: "card-button",
                "aria-pressed": pressed ? "true" : "false",
                "aria-label": `${face.getAttribute("aria-label")}${pressed ? ", picked" : ""}`,
                dataset: { focusKey: `card:${card.id}`, pick: card.id },
              },
              face,
            );
            button.addEventListener("click", () => {
              if (state.selection.has(card.id)) state.selection.delete(card.id);
              else state.selection.add(card.id);
              render();
            });
            return h("li", {}, button);
          }),
        )
      : h("p", { class: "muted" }, "No cards in your hand."),
    renderReasons(view, reasons, hand),
    usable.size ? h("p", { class: "hint" }, "Pick cards to narrow the choices of your move to the ones that use them.") : null,
    picked.length
      ? h(
          "button",
          { type: "button", dataset: { focusKey: "clear-picks" }, onclick: () => { state.selection.clear(); render(); } },
          picked.length === 1 ? "Clear the picked card" : `Clear the ${picked.length} picked cards`,
        )
      : null,
  );
  section.hidden = false;
}

function renderActions(view) {
  const section = $("actions");
  if (!state.seat || view.status !== "active") {
    section.hidden = true;
    return;
  }
  const groups = view.legal_actions.length ? visibleGroups(view) : [];
  const unmatched = view.legal_actions.length ? unmatchedPicks(view, groups) : null;
  let body;
  if (!view.legal_actions.length) {
    const awaited = view.awaiting ?? view.to_act;
    body = h("p", { class: "muted" }, awaited.length ? `Nothing to do now: waiting for ${listing(awaited.map((seat) => ctx.name(seat)))}.` : "Nothing to do now.");
  } else {
    body = [
      unmatched ? h("p", { id: "no-move-uses", class: "note" }, unmatched) : null,
      groups.map((group, index) =>
      h(
        "div",
        { class: ["action-group", group.compact && "compact"], role: "group", "aria-labelledby": `group-${group.key}` },
        // "Or" says "or else" only below another group: a group shown first has its own title.
        h("h3", { id: `group-${group.key}` }, index === 0 && group.aloneTitle ? (unmatched ? "Without the picked cards" : group.aloneTitle) : group.title),
        group.hint ? h("p", { class: "hint" }, group.hint) : null,
        h(
          "div",
          { class: "choices" },
          group.items.map((item) => {
            const key = JSON.stringify(item.action);
            return h(
              "button",
              {
                type: "button",
                class: ["choice", group.compact && "compact"],
                disabled: state.busy,
                "aria-label": item.ariaLabel || null,
                dataset: { action: key, focusKey: `action:${key}` },
                onclick: () => submit(item.action),
              },
              item.label,
            );
          }),
        ),
      ),
      ),
    ];
  }
  fill(section, h("h2", { id: "actions-heading", tabindex: "-1" }, "Your move"), body);
  section.setAttribute("aria-busy", state.busy ? "true" : "false");
  section.hidden = false;
}

/** The finished game's rematch, once a seat asked for one (the view's, or the summary's that
 * a spectator reads again now and then: see watchForRematch). */
function rematchOf(view) {
  return view.rematch || state.summary?.rematch || null;
}

const REMATCH_POLL_MS = 10000;
const REMATCH_POLL_FOR_MS = 30 * 60 * 1000;

/** A spectator of a finished game is told when its players press "Play again": the page
 * stopped following the game, so it reads the summary again every few seconds (for half an
 * hour at most) until a rematch is named. */
function watchForRematch() {
  if (state.seat || state.rematchTimer || rematchOf(state.view || {})) return;
  const until = Date.now() + REMATCH_POLL_FOR_MS;
  state.rematchTimer = setInterval(async () => {
    if (document.visibilityState !== "visible") return;
    try {
      state.summary = await api.game(gameId);
    } catch {
      return; // the next try
    }
    if (state.summary.rematch || Date.now() > until) clearInterval(state.rematchTimer);
    if (state.summary.rematch) render();
  }, REMATCH_POLL_MS);
}

function renderResult(view) {
  const section = $("result");
  if (view.status !== "finished" || !view.result) {
    section.hidden = true;
    return;
  }
  const result = view.result;
  const scores = result.scores ?? view.scores;
  const summary = state.summary?.status === "finished" ? state.summary : null;
  const secrets = summary ? state.secretOptions || [] : [];
  const playAgainButton = h("button", { type: "button", class: "primary", id: "play-again", dataset: { focusKey: "play-again" } }, "Play again with the same settings");
  playAgainButton.addEventListener("click", () => playAgain(playAgainButton));
  fill(
    section,
    h("h2", { id: "result-heading", tabindex: "-1", dataset: { focusKey: "result" } }, `Game over: ${winnersText(result.winners || [])}!`),
    h("p", {}, `Why: ${state.game.resultReason(result, ctx)}.`),
    h(
      "table",
      { class: "scores" },
      h("caption", {}, "Final scores"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"))),
      h(
        "tbody",
        {},
        scores.map((score, seat) =>
          h("tr", { class: result.winners?.includes(seat) ? "winner" : null }, h("th", { scope: "row" }, ctx.Name(seat)), h("td", {}, String(score))),
        ),
      ),
    ),
    summary
      ? h(
          "details",
          { class: "reveal advanced", open: state.revealOpen, ontoggle: (event) => (state.revealOpen = event.target.open) },
          h("summary", { dataset: { focusKey: "reveal" } }, "Details for developers: how the cards were dealt"),
          h("p", {}, "Seed: ", h("code", { id: "revealed-seed" }, String(summary.seed)), ". The same seed and the same moves replay this game."),
          secrets.map((name) => {
            const value = summary.options?.[name];
            const label = state.game.optionName ? state.game.optionName(name) : name;
            if (value === null || value === undefined) {
              return h("p", { dataset: { secret: name } }, `${label}: not set, so the cards were shuffled from the seed.`);
            }
            return h(
              "details",
              { dataset: { secret: name } },
              h("summary", {}, `${label}, secret during the game: the order of the cards (advanced)`),
              h("pre", { class: "raw" }, JSON.stringify(value)),
            );
          }),
        )
      : null,
    h(
      "p",
      { class: "links" },
      state.seat ? playAgainButton : null,
      rematchOf(view) && !state.seat
        ? h("a", { class: "button", id: "watch-rematch", href: `/watch/${encodeURIComponent(rematchOf(view))}` }, "They play again: watch the new game")
        : null,
      h("a", { class: "button", id: "watch-replay", href: `/replay/${encodeURIComponent(gameId)}` }, "Watch the replay"),
      h("a", { class: "button", href: "/" }, "Back to the lobby"),
    ),
  );
  section.hidden = false;
}

function renderLog() {
  const section = $("log");
  const list = $("log-list");
  const shown = new Set([...list.children].map((item) => item.dataset.seq));
  // Append new lines only: a screen reader reads what is added to the log, not a redraw.
  for (const entry of state.log) {
    if (shown.has(String(entry.seq))) continue;
    list.prepend(h("li", { dataset: { seq: String(entry.seq) } }, entry.text));
  }
  while (list.children.length > LOG_LIMIT) list.lastElementChild.remove();
  section.hidden = state.log.length === 0;
}

function renderProblem() {
  const box = $("problem");
  const problem = state.problem;
  if (!problem) {
    fill(box);
    return;
  }
  fill(
    box,
    h(
      "p",
      {},
      h("strong", {}, problem.title ? `${problem.title}: ` : "Problem: "),
      h("span", { class: "problem-detail" }, problem.detail),
      problem.rule ? [" ", h("small", { class: "problem-rule rule-ref", dataset: { rules: problem.rule } }, `(rule ${problem.rule})`)] : null,
    ),
  );
}

function renderCountdown(view) {
  const box = $("countdown");
  clearInterval(state.countdownTimer);
  if (!view.deadline || view.status !== "active") {
    box.hidden = true;
    return;
  }
  let nudged = false;
  // The deadline is the game's own timed rule's (its module's `ruleDeadline`: a timed No Way
  // window), or a seat's turn clock (kit/clock.py).
  const ruleDeadline = state.game.ruleDeadline ? state.game.ruleDeadline(view) : null;
  const clocked = view.clock?.seats?.find((seat) => seat.deadline === view.deadline);
  const byClock = clocked && ruleDeadline !== view.deadline;
  const ruleWords = (seconds) =>
    state.game.ruleCountdown
      ? state.game.ruleCountdown(seconds)
      : seconds > 0
        ? `Time to answer: ${seconds} s left.`
        : "Time is up…";
  const tick = () => {
    const left = view.deadline - api.serverNow();
    if (left > 0 && byClock) {
      const you = clocked.seat === ctx.me;
      const who = you ? "Your time" : `${seatName(clocked.seat)}'s time`;
      box.textContent = `${who}: ${Math.ceil(left)} s left, then the server moves for ${you ? "you" : "them"}.`;
    } else if (left > 0) {
      box.textContent = ruleWords(Math.ceil(left));
    } else {
      box.textContent = byClock ? "Time is up…" : ruleWords(0);
      if (!nudged && left < -2) {
        nudged = true; // the long-poll normally brings the close; if not, ask for the view
        refreshView();
      }
    }
  };
  tick();
  state.countdownTimer = setInterval(tick, 500);
  box.hidden = false;
}

function setSkipLink(target, words) {
  const skip = $("skip-link");
  skip.setAttribute("href", target);
  skip.textContent = words;
}

function render() {
  const view = state.view;
  if (!view) return;
  const focused = document.activeElement?.dataset?.focusKey;
  document.title = `${gameTitle(view.game_type)} · cardroom`;
  $("game-title").textContent = gameTitle(view.game_type);
  const role = watching || !state.seat ? "Watching" : `${state.seat.name}, seat ${state.seat.seat + 1}`;
  $("table-heading").textContent = `${gameTitle(view.game_type)}: ${role}`;
  // A spectator has no move: the first link skips to the table.
  if (state.seat && view.status === "active") setSkipLink("#actions", "Skip to your move");
  else setSkipLink("#centre", "Skip to the table");
  const status = statusText(view);
  if ($("status").textContent !== status) $("status").textContent = status;
  renderProblem();
  $("note").textContent = state.note || "";
  $("note").hidden = !state.note;
  const deal = dealNotice(view.deal);
  $("deal").textContent = deal;
  $("deal").hidden = !deal;
  renderInvite(view);
  renderAway(view);
  renderResult(view);
  renderActions(view);
  renderHand(view);
  renderCentre(view);
  renderSeats(view);
  renderLog();
  renderCountdown(view);
  renderRulesLink(view.game_type);
  if (view.status === "finished") watchForRematch();
  const main = $("main");
  main.removeAttribute("aria-busy");
  main.dataset.version = String(view.version);
  main.dataset.status = view.status;
  main.dataset.busy = state.busy ? "true" : "false";
  main.dataset.thinking = thinkingSeats(view).join(" "); // the seats whose bot is thinking
  // Your move: the game awaits you (in a simultaneous phase you may still change an answer
  // you gave, but nobody waits for it).
  const awaited = (view.awaiting ?? view.to_act).includes(ctx.me);
  main.dataset.myMove = view.legal_actions.length && awaited && !state.busy ? "true" : "false";
  document.body.dataset.ready = "table";
  const justFinished = view.status === "finished" && state.shownStatus !== null && state.shownStatus !== "finished";
  state.shownStatus = view.status;
  if (justFinished && !$("result").hidden) {
    // The last move was made far down the page (on a phone, 1000 px below the result): bring
    // the result to the top of the window and give it the focus, so it is seen and read.
    $("result-heading").focus({ preventScroll: true });
    $("result").scrollIntoView({ block: "start" });
  } else if (focused && document.activeElement === document.body) {
    const again = document.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
    else if (focused.startsWith("action:") || focused.startsWith("card:")) $("actions-heading")?.focus();
  }
}

// --- start --------------------------------------------------------------------------------

async function enterTable() {
  let view;
  try {
    view = await api.view(gameId, state.seat?.token);
  } catch (error) {
    if (error instanceof Problem && error.status === 401 && state.seat) {
      forgetSeat(gameId); // a token this game does not know: watch instead
      state.seat = null;
      state.note = "This browser's seat token is not valid for this game: you are watching.";
      view = await api.view(gameId);
    } else {
      throw error;
    }
  }
  accept(view);
  const history = await api.events(gameId, { token: state.seat?.token, after: Math.max(0, view.last_seq - HISTORY_ON_LOAD) });
  addEvents(history.events);
  state.lastSeq = Math.max(state.lastSeq, view.last_seq);
  if (view.status === "finished") await loadReveal();
  if (!state.seat && !watching) state.note = state.note || "Every seat is taken: you are watching.";
  render();
  if (view.status !== "finished") follow();
}

async function start() {
  try {
    [state.summary] = await Promise.all([api.game(gameId), loadGameTypes()]);
    state.game = await loadGameModule(state.summary.game_type);
    if (!state.seat && !watching && state.summary.status === "waiting" && state.summary.seats.some((seat) => !seat.taken)) {
      renderJoin();
      return;
    }
    if (state.seat && invitedSeat !== null && invitedSeat !== state.seat.seat) {
      state.note = `This browser already sits in seat ${state.seat.seat + 1}: send the invitation link for seat ${invitedSeat + 1} to your friend.`;
    }
    await enterTable();
  } catch (error) {
    const gone = error instanceof Problem && error.status === 404;
    $("table-heading").textContent = gone ? "No such game" : "The table cannot be shown";
    fill($("problem"), h("p", {}, gone ? "This game does not exist, or it expired after a while without moves. " : problemText(error), " ", h("a", { href: "/" }, "Back to the lobby")));
    $("main").removeAttribute("aria-busy");
    document.body.dataset.ready = "error";
  }
}

start();
