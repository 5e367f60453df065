// A Redis storage adapter for boardgame.io (its `Async` storage interface), with ioredis.
//
// One match, four keys, as boardgame.io's own FlatFile adapter lays a match out:
//   <prefix>:<matchID>:state     the latest state (JSON), written on every move
//   <prefix>:<matchID>:initial   the state at creation (JSON)
//   <prefix>:<matchID>:metadata  players, names, credentials, connection flags (JSON)
//   <prefix>:<matchID>:log       a list: one JSON entry per log entry of every move
// A move's state and its log entries are written in one MULTI, so a reader never sees the
// one without the other. boardgame.io serialises the moves of a match in one server process
// (a queue per match) and checks the state id itself; the adapter adds no compare-and-set.

const Redis = require('ioredis');
const { Async } = require('boardgame.io/internal');

const KINDS = ['state', 'initial', 'metadata', 'log'];

class RedisStorage extends Async {
  constructor({ url, prefix = 'bgio' }) {
    super();
    this.url = url;
    this.prefix = prefix;
    this.redis = null;
  }

  key(matchID, kind) {
    return `${this.prefix}:${matchID}:${kind}`;
  }

  keys(matchID) {
    return KINDS.map((kind) => this.key(matchID, kind));
  }

  async connect() {
    this.redis = new Redis(this.url, { lazyConnect: true, enableAutoPipelining: false });
    await this.redis.connect();
  }

  async createMatch(matchID, { initialState, metadata }) {
    const initial = JSON.stringify(initialState);
    await this.redis
      .multi()
      .set(this.key(matchID, 'initial'), initial)
      .set(this.key(matchID, 'state'), initial)
      .set(this.key(matchID, 'metadata'), JSON.stringify(metadata))
      .exec();
  }

  async setState(matchID, state, deltalog) {
    const write = this.redis.multi().set(this.key(matchID, 'state'), JSON.stringify(state));
    if (deltalog && deltalog.length > 0) {
      write.rpush(this.key(matchID, 'log'), ...deltalog.map((entry) => JSON.stringify(entry)));
    }
    await write.exec();
  }

  async setMetadata(matchID, metadata) {
    await this.redis.set(this.key(matchID, 'metadata'), JSON.stringify(metadata));
  }

  async fetch(matchID, { state, metadata, log, initialState }) {
    const read = this.redis.pipeline();
    const wanted = [];
    if (state) wanted.push(['state', read.get(this.key(matchID, 'state'))]);
    if (metadata) wanted.push(['metadata', read.get(this.key(matchID, 'metadata'))]);
    if (initialState) wanted.push(['initialState', read.get(this.key(matchID, 'initial'))]);
    if (log) wanted.push(['log', read.lrange(this.key(matchID, 'log'), 0, -1)]);
    const replies = await read.exec();
    const result = {};
    wanted.forEach(([name], index) => {
      const [error, value] = replies[index];
      if (error) throw error;
      if (name === 'log') {
        result.log = value.map((entry) => JSON.parse(entry));
      } else if (value !== null) {
        result[name] = JSON.parse(value);
      }
    });
    return result;
  }

  async wipe(matchID) {
    await this.redis.del(...this.keys(matchID));
  }

  // The lobby's match list: every match's metadata, filtered as boardgame.io's own
  // adapters filter it. (A scan: listing is rare; the benchmark never lists.)
  async listMatches(opts = {}) {
    const ids = [];
    const suffix = ':metadata';
    let cursor = '0';
    do {
      const [next, found] = await this.redis.scan(
        cursor,
        'MATCH',
        `${this.prefix}:*${suffix}`,
        'COUNT',
        1000
      );
      cursor = next;
      for (const key of found) {
        ids.push(key.slice(this.prefix.length + 1, key.length - suffix.length));
      }
    } while (cursor !== '0');
    const out = [];
    for (const matchID of ids) {
      const { metadata } = await this.fetch(matchID, { metadata: true });
      if (metadata && matches(metadata, opts)) out.push(matchID);
    }
    return out;
  }

  async close() {
    if (this.redis) await this.redis.quit();
  }
}

function matches(metadata, { gameName, where }) {
  if (gameName !== undefined && metadata.gameName !== gameName) return false;
  if (!where) return true;
  if (where.isGameover !== undefined && (metadata.gameover !== undefined) !== where.isGameover) {
    return false;
  }
  if (where.updatedBefore !== undefined && metadata.updatedAt >= where.updatedBefore) return false;
  if (where.updatedAfter !== undefined && metadata.updatedAt <= where.updatedAfter) return false;
  return true;
}

module.exports = { RedisStorage };
