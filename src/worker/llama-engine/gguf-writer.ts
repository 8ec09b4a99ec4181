// A writer of GGUF version 3 files (ggml's docs/gguf.md): the header (magic "GGUF", version,
// tensor count, metadata count), typed metadata key/values, tensor infos (name, dimensions
// innermost first, ggml type, offset into the data section) and the data section, every tensor
// aligned to general.alignment (32 bytes, the default). Tensors are F32 or Q8_0 (blocks of 32
// values: an f16 scale d = max|x| / 127 and 32 int8 round(x / d)). Little-endian throughout.
import { open } from 'node:fs/promises';
import { usageError } from '../../errors.js';

/** GGUF metadata value types (gguf_metadata_value_type). */
const GGUF_TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const;

/** ggml tensor types this writer encodes (ggml_type). */
export const GGML_TYPE = { F32: 0, Q8_0: 8 } as const;
export type TensorType = keyof typeof GGML_TYPE;

const ALIGNMENT = 32;
const Q8_0_BLOCK = 32;
/** Bytes of one Q8_0 block: an f16 scale and 32 int8 quants. */
const Q8_0_BLOCK_BYTES = 2 + Q8_0_BLOCK;

/** One metadata value, tagged with its GGUF type. */
export type GgufValue =
  | { readonly type: 'uint32'; readonly value: number }
  | { readonly type: 'int32'; readonly value: number }
  | { readonly type: 'float32'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'strings'; readonly value: readonly string[] }
  | { readonly type: 'float32s'; readonly value: readonly number[] }
  | { readonly type: 'int32s'; readonly value: readonly number[] };

export interface GgufTensor {
  readonly name: string;
  /** Dimensions, innermost (row length, ne0) first. */
  readonly dims: readonly number[];
  readonly type: TensorType;
  /** Row-major values, dims.reduce(*) of them. */
  readonly data: Float32Array;
}

/** Bytes of a little-endian buffer, grown as written. */
class ByteSink {
  private buf = Buffer.alloc(1 << 16);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  u32(v: number): void {
    this.room(4);
    this.length = this.buf.writeUInt32LE(v, this.length);
  }

  i32(v: number): void {
    this.room(4);
    this.length = this.buf.writeInt32LE(v, this.length);
  }

  u64(v: number): void {
    this.room(8);
    this.length = this.buf.writeBigUInt64LE(BigInt(v), this.length);
  }

  f32(v: number): void {
    this.room(4);
    this.length = this.buf.writeFloatLE(v, this.length);
  }

  u8(v: number): void {
    this.room(1);
    this.length = this.buf.writeUInt8(v, this.length);
  }

  str(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    this.room(bytes.length);
    bytes.copy(this.buf, this.length);
    this.length += bytes.length;
  }

  pad(alignment: number): void {
    const n = (alignment - (this.length % alignment)) % alignment;
    this.room(n);
    this.length += n;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function writeValue(out: ByteSink, v: GgufValue): void {
  switch (v.type) {
    case 'uint32':
      out.u32(GGUF_TYPE.uint32);
      out.u32(v.value);
      return;
    case 'int32':
      out.u32(GGUF_TYPE.int32);
      out.i32(v.value);
      return;
    case 'float32':
      out.u32(GGUF_TYPE.float32);
      out.f32(v.value);
      return;
    case 'bool':
      out.u32(GGUF_TYPE.bool);
      out.u8(v.value ? 1 : 0);
      return;
    case 'string':
      out.u32(GGUF_TYPE.string);
      out.str(v.value);
      return;
    case 'strings':
      writeArray(out, GGUF_TYPE.string, v.value, (s) => out.str(s));
      return;
    case 'float32s':
      writeArray(out, GGUF_TYPE.float32, v.value, (x) => out.f32(x));
      return;
    case 'int32s':
      writeArray(out, GGUF_TYPE.int32, v.value, (x) => out.i32(x));
      return;
  }
}

/** An array value: its type tag, its element type, its length, then each element. */
function writeArray<T>(out: ByteSink, elementType: number, values: readonly T[], write: (x: T) => void): void {
  out.u32(GGUF_TYPE.array);
  out.u32(elementType);
  out.u64(values.length);
  for (const x of values) write(x);
}

/** IEEE half precision of `x` (round to nearest even), as its 16 bits. */
export function toF16Bits(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0] as number;
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let m = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    if (rest > half || (rest === half && (m & 1) === 1)) m += 1;
    return sign | m;
  }
  let m = mant >>> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (m & 1) === 1)) {
    m += 1;
    if (m === 0x400) {
      m = 0;
      e += 1;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | m;
}

/** The value 16 half-precision bits stand for. */
export function fromF16Bits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m === 0 ? sign * Infinity : NaN;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** Bytes of a tensor of `count` values of `type`. */
function tensorBytes(type: TensorType, count: number): number {
  return type === 'F32' ? count * 4 : (count / Q8_0_BLOCK) * Q8_0_BLOCK_BYTES;
}

/** `data` in ggml's Q8_0 layout. */
export function quantizeQ8_0(data: Float32Array): Buffer {
  if (data.length % Q8_0_BLOCK !== 0) throw usageError(`Q8_0 needs a multiple of ${Q8_0_BLOCK} values, got ${data.length}`);
  const out = Buffer.alloc(tensorBytes('Q8_0', data.length));
  let o = 0;
  for (let b = 0; b < data.length; b += Q8_0_BLOCK) {
    let amax = 0;
    for (let i = 0; i < Q8_0_BLOCK; i++) amax = Math.max(amax, Math.abs(data[b + i] as number));
    const d = amax / 127;
    const bits = toF16Bits(d);
    out.writeUInt16LE(bits, o);
    const inv = d === 0 ? 0 : 1 / d;
    for (let i = 0; i < Q8_0_BLOCK; i++) out.writeInt8(Math.max(-127, Math.min(127, Math.round((data[b + i] as number) * inv))), o + 2 + i);
    o += Q8_0_BLOCK_BYTES;
  }
  return out;
}

function encodeTensor(t: GgufTensor): Buffer {
  if (t.type === 'Q8_0') return quantizeQ8_0(t.data);
  return Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

/** Write a GGUF v3 file of `metadata` and `tensors` to `file`; answers its size in bytes. */
export async function writeGguf(file: string, metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Promise<number> {
  const head = new ByteSink();
  head.u32(0x46554747); // "GGUF" read as a little-endian uint32
  head.u32(3);
  head.u64(tensors.length);
  head.u64(metadata.size);
  for (const [key, value] of metadata) {
    head.str(key);
    writeValue(head, value);
  }
  let offset = 0;
  for (const t of tensors) {
    const count = t.dims.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw usageError(`tensor ${t.name}: dims ${t.dims.join('x')} hold ${count} values, data has ${t.data.length}`);
    if (t.type === 'Q8_0' && (t.dims[0] ?? 0) % Q8_0_BLOCK !== 0) throw usageError(`tensor ${t.name}: Q8_0 rows must be a multiple of ${Q8_0_BLOCK} long, got ${t.dims[0]}`);
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(GGML_TYPE[t.type]);
    head.u64(offset);
    offset += tensorBytes(t.type, count);
    offset += (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT;
  }
  head.pad(ALIGNMENT);
  const fh = await open(file, 'w');
  try {
    let size = 0;
    const write = async (b: Buffer) => {
      await fh.write(b, 0, b.length, size);
      size += b.length;
    };
    await write(head.bytes());
    for (const t of tensors) {
      await write(encodeTensor(t));
      const pad = (ALIGNMENT - (size % ALIGNMENT)) % ALIGNMENT;
      if (pad > 0) await write(Buffer.alloc(pad));
    }
    return size;
  } finally {
    await fh.close();
  }
}
