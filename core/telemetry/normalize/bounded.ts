/** A bounded set of recently seen ids (insertion-ordered; the oldest are forgotten first). */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity: number) {}

  /** Adds `id`; false when it was already present (a re-sent record). */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value as string);
    return true;
  }
}

/** A map that forgets its oldest entries past `capacity`. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly capacity: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.capacity) super.delete(this.keys().next().value as K);
    return this;
  }
}
