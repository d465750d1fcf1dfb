// Node listeners attached only while something needs them: idle connections cost nothing per
// event. Each pub/sub service counts its demand per event and holds one listener per event.
import type { NodeEventMap, NodeEvents } from '../../node/events.js'

export type EventName = keyof NodeEventMap
type Listeners = { [E in EventName]?: (...args: NodeEventMap[E]) => void }

export class EventDemand {
  private readonly counts = new Map<EventName, number>()

  constructor(
    private readonly events: NodeEvents,
    private readonly listeners: Listeners,
  ) {}

  acquire(event: EventName): void {
    const n = this.counts.get(event) ?? 0
    this.counts.set(event, n + 1)
    if (n === 0) this.events.on(event, this.listeners[event] as never)
  }

  release(event: EventName): void {
    const n = (this.counts.get(event) ?? 0) - 1
    this.counts.set(event, n)
    if (n === 0) this.events.off(event, this.listeners[event] as never)
  }
}
