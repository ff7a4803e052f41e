// CometBFT's event query language (libs/pubsub/query/syntax), as tx_search takes it:
//   tx.hash='ABCD…' AND tx.height>=5 AND message.sender='chain1…' AND transfer.amount CONTAINS 'stake'
// Conditions are joined by AND; operators =, <, <=, >, >=, CONTAINS, EXISTS; operands are 'strings'
// (no escapes), numbers, TIME <RFC3339> and DATE <yyyy-mm-dd>.
import { ChaindError } from '@chaind/errors';
import type { Event } from 'cosmjs-types/tendermint/abci/types';

export type Operator = '=' | '<' | '<=' | '>' | '>=' | 'CONTAINS' | 'EXISTS';

export type Operand =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'time'; readonly ms: number };

export interface Condition {
  readonly tag: string;
  readonly op: Operator;
  /** Absent for EXISTS. */
  readonly operand?: Operand;
}

/** `maxQueryLength`. */
export const MAX_QUERY_LENGTH = 512;

export class QueryError extends ChaindError<'query'> {
  override readonly name = 'QueryError';
  constructor(message: string, options?: ErrorOptions) {
    super('query', message, options);
  }
}

const TOKEN = {
  space: /\s+/y,
  tag: /[^\s'"=<>!()]+/y,
  op: /<=|>=|=|<|>/y,
  string: /'([^']*)'/y,
  number: /-?[0-9]+(?:\.[0-9]+)?/y,
  time: /TIME\s+(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))/y,
  date: /DATE\s+(\d{4}-\d{2}-\d{2})/y,
  word: /(AND|CONTAINS|EXISTS)(?![^\s'"=<>!()])/y,
};

/** Parses a query; throws a QueryError naming the position of the first thing it cannot read. */
export function parseQuery(text: string): Condition[] {
  let pos = 0;
  const match = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m !== null) pos = re.lastIndex;
    return m;
  };
  const skip = (): void => void match(TOKEN.space);
  const fail = (what: string): never => {
    throw new QueryError(`failed to parse query ${JSON.stringify(text)}: expected ${what} at position ${pos}`);
  };
  const conditions: Condition[] = [];
  skip();
  if (pos === text.length) throw new QueryError('query cannot be empty');
  for (;;) {
    const tag = match(TOKEN.tag)?.[0] ?? fail('a tag such as tx.height');
    skip();
    const word = match(TOKEN.word)?.[1];
    if (word === 'EXISTS') {
      conditions.push({ tag, op: 'EXISTS' });
    } else {
      const op: Operator =
        word === 'CONTAINS' ? 'CONTAINS' : ((match(TOKEN.op)?.[0] as Operator | undefined) ?? fail('an operator (=, <, <=, >, >=, CONTAINS, EXISTS)'));
      skip();
      let operand: Operand;
      let m: RegExpExecArray | null;
      if ((m = match(TOKEN.string)) !== null) operand = { kind: 'string', value: m[1] };
      else if ((m = match(TOKEN.time)) !== null || (m = match(TOKEN.date)) !== null) {
        const ms = Date.parse(m[1].length === 10 ? `${m[1]}T00:00:00Z` : m[1]);
        if (Number.isNaN(ms)) fail('a valid time');
        operand = { kind: 'time', ms };
      } else if ((m = match(TOKEN.number)) !== null) operand = { kind: 'number', text: m[0] };
      else return fail("an operand ('string', number, TIME or DATE)");
      if (op === 'CONTAINS' && operand.kind !== 'string') fail('a string after CONTAINS');
      conditions.push({ tag, op, operand });
    }
    skip();
    if (pos === text.length) return conditions;
    if (match(TOKEN.word)?.[1] !== 'AND') fail('AND');
    skip();
  }
}

const INTEGER = /^-?[0-9]+$/;

/** -1, 0 or 1 comparing two decimal numbers: exactly for integers (amounts exceed 2^53), else as doubles. */
function compareNumbers(a: string, b: string): number | undefined {
  if (INTEGER.test(a) && INTEGER.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Whether one value (an attribute's, or the tx's height) satisfies a condition's operator and operand. */
export function matchValue(c: Condition, value: string): boolean {
  const o = c.operand;
  if (c.op === 'EXISTS' || o === undefined) return true;
  if (c.op === 'CONTAINS') return o.kind === 'string' && value.includes(o.value);
  let cmp: number | undefined;
  if (o.kind === 'string') {
    // strings only compare for equality
    return c.op === '=' && value === o.value;
  } else if (o.kind === 'number') {
    // a number operand compares the leading number of the value ("100stake" counts as 100), as CometBFT
    const lead = /^-?[0-9]+(?:\.[0-9]+)?/.exec(value)?.[0];
    cmp = lead === undefined ? undefined : compareNumbers(lead, o.text);
  } else {
    const ms = Date.parse(value);
    cmp = Number.isNaN(ms) ? undefined : Math.sign(ms - o.ms);
  }
  if (cmp === undefined) return false;
  switch (c.op) {
    case '=':
      return cmp === 0;
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case '>':
      return cmp > 0;
    default:
      return cmp >= 0;
  }
}

/** Whether some attribute `type.key` of the events satisfies the condition (event attributes are all indexed here). */
export function matchEvents(c: Condition, events: readonly Event[]): boolean {
  return events.some((e) => e.attributes.some((a) => `${e.type}.${a.key}` === c.tag && matchValue(c, a.value)));
}

/** The heights the `tag` (tx.height, block.height) conditions allow, narrowed from [lo, hi]. */
export function heightBounds(conditions: readonly Condition[], tag: string, lo: bigint, hi: bigint): [bigint, bigint] {
  for (const c of conditions) {
    if (c.tag !== tag || c.operand?.kind !== 'number' || !INTEGER.test(c.operand.text)) continue;
    const v = BigInt(c.operand.text);
    if ((c.op === '=' || c.op === '>=') && v > lo) lo = v;
    if (c.op === '>' && v + 1n > lo) lo = v + 1n;
    if ((c.op === '=' || c.op === '<=') && v < hi) hi = v;
    if (c.op === '<' && v - 1n < hi) hi = v - 1n;
  }
  return [lo, hi];
}

/** parseQuery with the checks tx_search and block_search share; failures as CometBFT's texts. */
export function searchConditions(query: string, orderBy: string): Condition[] {
  if (query.length > MAX_QUERY_LENGTH) throw new QueryError('maximum query length exceeded');
  if (orderBy !== '' && orderBy !== 'asc' && orderBy !== 'desc') throw new QueryError('expected order_by to be either `asc` or `desc` or empty');
  return parseQuery(query);
}
