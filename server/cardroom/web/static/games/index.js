// The module that draws each game at the table: the one its package ships (its GamePlugin's
// renderer), served at /web/renderers/<game_type>.js, or, for a game that ships none, the
// generic one, which draws any game from its declared shapes and its view (the server serves
// it at the same address). A module that exports `prepare(gameType)` is given the time to
// read what it needs (the generic one reads the API document) before it draws.

import * as generic from "./generic.js";

// What the table calls on every game's module (docs/web.md, "Renderers"); a module that
// leaves some out is completed by the generic one, so a plug-in draws only what it wants to.
const REQUIRED = ["cardName", "renderCard", "sortHand", "seatDetails", "phaseText", "centre", "youDetails", "actionGroups", "describe", "resultReason"];

const loaded = new Map();
const prepared = new Map(); // game type -> the promise of its module's prepare()

/** The module already loaded for a game type (the generic one until loadGameModule ran). */
export function gameModule(gameType) {
  return loaded.get(gameType) || generic;
}

/** Load (once) the module that draws ``gameType``; the generic one if it cannot be loaded.
 * With ``prepare`` (the table, the replay), the module's own preparation is awaited too; the
 * lobby, which only reads a module's words for the options, does without. */
export async function loadGameModule(gameType, { prepare = true } = {}) {
  if (!gameType) return generic;
  if (!loaded.has(gameType)) {
    const address = new URL(`../renderers/${encodeURIComponent(gameType)}.js`, import.meta.url);
    try {
      const own = await import(address.href);
      loaded.set(gameType, REQUIRED.every((name) => typeof own[name] === "function") ? own : { ...generic, ...own });
    } catch (error) {
      console.warn(`cardroom: drawing ${gameType} with the generic table (${error})`);
      loaded.set(gameType, generic);
    }
  }
  const module = loaded.get(gameType);
  if (prepare && typeof module.prepare === "function") {
    if (!prepared.has(gameType)) prepared.set(gameType, Promise.resolve(module.prepare(gameType)).catch(() => {}));
    await prepared.get(gameType);
  }
  return module;
}
