// The game modules of the web table, by game type; any other type gets the generic one.

import * as exactPlays from "./exact-plays.js";
import * as generic from "./generic.js";
import * as mrToast from "./mr-toast.js";

const MODULES = { "mr-toast": mrToast, "exact-plays": exactPlays };

export function gameModule(gameType) {
  return MODULES[gameType] || generic;
}
