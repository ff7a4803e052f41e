import type { Event } from 'cosmjs-types/tendermint/abci/types';

export type { Event };

/** Collects the events of one execution scope (a tx, a block phase). */
export class EventManager {
  private readonly list: Event[] = [];

  emit(type: string, attributes: Readonly<Record<string, string>> | readonly [string, string][]): void {
    const pairs = Array.isArray(attributes) ? attributes : Object.entries(attributes);
    this.list.push({ type, attributes: pairs.map(([key, value]) => ({ key, value, index: true })) });
  }

  emitEvents(events: readonly Event[]): void {
    this.list.push(...events);
  }

  events(): Event[] {
    return [...this.list];
  }
}
