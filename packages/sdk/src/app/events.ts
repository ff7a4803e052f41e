import type { Event } from 'cosmjs-types/tendermint/abci/types';

export type { Event };

/** Collects the events of one execution scope (a tx, a block phase). */
export class EventManager {
  private readonly list: Event[] = [];

  emit(type: string, attributes: Readonly<Record<string, string>> | readonly [string, string][]): void {
    const pairs: readonly (readonly [string, string])[] = Array.isArray(attributes) ? attributes : Object.entries(attributes);
    const list: Event['attributes'] = new Array<Event['attributes'][number]>(pairs.length);
    for (let i = 0; i < pairs.length; i++) list[i] = { key: pairs[i][0], value: pairs[i][1], index: true };
    this.list.push({ type, attributes: list });
  }

  emitEvents(events: readonly Event[]): void {
    for (const e of events) this.list.push(e);
  }

  /** Appends every event of `other` (a branch's, being written), without copying its list first. */
  appendFrom(other: EventManager): void {
    for (const e of other.list) this.list.push(e);
  }

  events(): Event[] {
    return [...this.list];
  }
}
