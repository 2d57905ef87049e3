/**
 * Buffers for whole answers read into memory (list pages), whose lifetime is explicit: a page's buffer is taken when
 * its answer starts, and given back once nothing reads it any more (the output wrote it, paging kept what it needs
 * of it), to be filled by a later page. A list then uses a few buffers, however many pages it has: its pages in
 * flight, the one being checked and the one being written.
 *
 * Why: the bytes of a page live outside V8's heap, and a page nobody holds is freed only by the next garbage
 * collection. Reading pages over sockets of our own leaves so little garbage on the heap that collections come
 * rarely, and dead pages piled up to V8's limit for outside memory (tens of MiB) before one came. A buffer that is
 * not given back (a page whose output is a copy, a run cut short) is simply collected as any other.
 */
export class PageBuffers {
  private readonly free: Buffer[] = [];
  /** The buffers this pool made: only those come back (a view of someone else's memory is never reused). */
  private readonly own = new WeakSet<ArrayBufferLike>();
  /** The memory of the free buffers: a buffer given back twice is kept once. */
  private readonly freed = new Set<ArrayBufferLike>();
  /** The size new buffers get: the largest asked for so far, with room to spare, so that one fits the next page. */
  private size: number;

  constructor(
    initial = 16 * 1024,
    /** Free buffers kept at most; more are left to the garbage collector. */
    private readonly keep = 16,
  ) {
    this.size = initial;
  }

  /** A buffer of at least `min` bytes (their contents undefined), of this pool until given back. */
  take(min: number): Buffer {
    if (min > this.size) this.size = roundUp(min + (min >> 3));
    const free = this.free;
    for (let k = free.length - 1; k >= 0; k--) {
      const buffer = free[k];
      if (buffer.length >= min) {
        free[k] = free[free.length - 1];
        free.pop();
        this.freed.delete(buffer.buffer);
        return buffer;
      }
    }
    const buffer = Buffer.allocUnsafeSlow(Math.max(min, this.size));
    this.own.add(buffer.buffer);
    return buffer;
  }

  /**
   * A buffer at least `min` bytes long holding the first `used` bytes of `buffer`, which is given back: for an answer
   * that turned out longer than the buffer it was being read into.
   */
  grow(buffer: Buffer, used: number, min: number): Buffer {
    const bigger = this.take(Math.max(min, buffer.length * 2));
    buffer.copy(bigger, 0, 0, used);
    this.give(buffer);
    return bigger;
  }

  /**
   * Gives back the buffer that `view` is part of (the whole buffer, whatever part of it the view shows). Nothing may
   * read or write the view afterwards. Views of memory this pool did not make are ignored.
   */
  give(view: Uint8Array): void {
    const memory = view.buffer;
    if (!this.own.has(memory) || this.freed.has(memory) || memory.byteLength < this.size || this.free.length >= this.keep) return;
    // Made with allocUnsafeSlow, the buffer is the whole of its memory.
    this.freed.add(memory);
    this.free.push(Buffer.from(memory, 0, memory.byteLength));
  }

  /** Free buffers now held (for tests). */
  get held(): number {
    return this.free.length;
  }
}

/** Up to a whole number of 16 KiB. */
const roundUp = (size: number): number => Math.ceil(size / 16384) * 16384;
