// The module that draws each game at the table: the one its package ships (its GamePlugin's
// renderer), served at /web/renderers/<game_type>.js, or, for a game that ships none, the
// generic one, which draws any game from its view (the server serves it at the same address).

import * as generic from "./generic.js";

const loaded = new Map();

/** The module already loaded for a game type (the generic one until loadGameModule ran). */
export function gameModule(gameType) {
  return loaded.get(gameType) || generic;
}

/** Load (once) the module that draws ``gameType``; the generic one if it cannot be loaded. */
export async function loadGameModule(gameType) {
  if (!gameType) return generic;
  if (!loaded.has(gameType)) {
    const address = new URL(`../renderers/${encodeURIComponent(gameType)}.js`, import.meta.url);
    try {
      loaded.set(gameType, await import(address.href));
    } catch (error) {
      console.warn(`cardroom: drawing ${gameType} with the generic table (${error})`);
      loaded.set(gameType, generic);
    }
  }
  return loaded.get(gameType);
}
