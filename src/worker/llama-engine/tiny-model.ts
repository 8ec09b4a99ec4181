// A tiny Llama-architecture model written by code, for running a real inference engine
// (llama.cpp through node-llama-cpp) on a CPU with nothing downloaded: seeded random weights
// (the same seed writes the same file) and a byte-level SentencePiece vocabulary, so any text
// tokenizes and generation costs what a Llama forward pass of this size costs, though the text
// it writes means nothing.
//
// Vocabulary (tokenizer.ggml.model "llama", SentencePiece with byte fallback): <unk>, <s>, </s>,
// the 256 byte tokens <0x00>..<0xFF> (type BYTE: any character not in the vocabulary falls back
// to its UTF-8 bytes), "▁" and the printable ASCII characters, and merged pieces: every word of
// qbench's synthetic prompts with its leading "▁" (and the prefixes SentencePiece's pair merges
// pass through), and "xx", "xxxx". So a synthetic prompt of N words is N tokens and the LLM
// probe's filler of 4N "x" characters is N tokens plus one "▁": the chars/4 rule qbench's
// workload and twin count by holds on this model exactly for those prompts.
import { usageError } from '../../errors.js';
import { seededRng } from '../../deployment/random.js';
import { SYNTHETIC_WORDS } from '../../load/llm/workload.js';
import { writeGguf, type GgufTensor, type GgufValue, type TensorType } from './gguf-writer.js';

/** The shape of the model. */
export interface TinyModelShape {
  /** Hidden size (llama.embedding_length); a multiple of 32 and of `heads`. */
  readonly embd: number;
  readonly layers: number;
  /** Feed-forward size; a multiple of 32. */
  readonly ff: number;
  readonly heads: number;
  /** Key/value heads (grouped-query attention when below `heads`); divides `heads`. */
  readonly headsKv: number;
  /** Longest sequence the model declares (llama.context_length). */
  readonly contextLength: number;
  /** Tensor type of the matrices (norms stay F32). */
  readonly type: TensorType;
  readonly seed: number;
}

/**
 * The default: two layers with a wide feed-forward (about 20M parameters, 21 MB in Q8_0), so that
 * the matrix products outweigh attention and a prompt's prefill time grows about linearly with
 * its length up to a few thousand tokens, as on a large model.
 */
export const TINY_MODEL_DEFAULTS: TinyModelShape = { embd: 384, layers: 2, ff: 8192, heads: 6, headsKv: 6, contextLength: 4096, type: 'Q8_0', seed: 1 };

/** SentencePiece token types (llama_token_type). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

export interface TinyVocab {
  readonly tokens: readonly string[];
  readonly scores: readonly number[];
  readonly types: readonly number[];
}

/** Piece "▁" stands for a space in SentencePiece. */
const SPACE = '\u2581';

/** The vocabulary (see the header). */
export function tinyVocab(): TinyVocab {
  const tokens: string[] = ['<unk>', '<s>', '</s>'];
  const types: number[] = [TOKEN_TYPE.unknown, TOKEN_TYPE.control, TOKEN_TYPE.control];
  const scores: number[] = [0, 0, 0];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_TYPE.byte);
    scores.push(0);
  }
  const seen = new Set<string>(tokens);
  // A merged piece scores by its length: SentencePiece merges the best-scoring pair first, so
  // longer pieces win over the shorter ones they are made of.
  const piece = (p: string) => {
    if (seen.has(p)) return;
    seen.add(p);
    tokens.push(p);
    types.push(TOKEN_TYPE.normal);
    scores.push([...p].length);
  };
  piece(SPACE);
  for (let c = 0x21; c <= 0x7e; c++) piece(String.fromCharCode(c));
  for (const w of SYNTHETIC_WORDS) {
    const full = SPACE + w;
    for (let n = 2; n <= full.length; n++) piece(full.slice(0, n));
  }
  piece('xx');
  piece('xxxx');
  return { tokens, scores, types };
}

function checkShape(s: TinyModelShape): void {
  const problems: string[] = [];
  const whole = (name: keyof TinyModelShape, min: number, max: number) => {
    const v = s[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) problems.push(`${name} must be an integer from ${min} to ${max}, got ${String(v)}`);
  };
  whole('embd', 32, 4096);
  whole('layers', 1, 64);
  whole('ff', 32, 16_384);
  whole('heads', 1, 64);
  whole('headsKv', 1, 64);
  whole('contextLength', 16, 131_072);
  if (s.embd % 32 !== 0) problems.push(`embd must be a multiple of 32, got ${s.embd}`);
  if (s.ff % 32 !== 0) problems.push(`ff must be a multiple of 32, got ${s.ff}`);
  if (s.embd % s.heads !== 0) problems.push(`embd (${s.embd}) must be a multiple of heads (${s.heads})`);
  if (s.heads % s.headsKv !== 0) problems.push(`heads (${s.heads}) must be a multiple of headsKv (${s.headsKv})`);
  if ((s.embd / s.heads) % 2 !== 0) problems.push(`the head size embd / heads (${s.embd / s.heads}) must be even (rotary embedding)`);
  if (s.type !== 'F32' && s.type !== 'Q8_0') problems.push(`type must be F32 or Q8_0, got ${String(s.type)}`);
  if (problems.length > 0) throw usageError(`invalid tiny model shape:\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`);
}

/** Weights uniform in +-sqrt(3 / fanIn) (unit variance out for unit variance in), from `next`. */
function matrix(next: () => number, rows: number, fanIn: number): Float32Array {
  const a = Math.sqrt(3 / fanIn);
  const out = new Float32Array(rows * fanIn);
  for (let i = 0; i < out.length; i++) out[i] = (next() * 2 - 1) * a;
  return out;
}

const ones = (n: number) => new Float32Array(n).fill(1);

/** Metadata and tensors of the model (what writeTinyModel writes). */
export function tinyModel(shape: TinyModelShape = TINY_MODEL_DEFAULTS): { metadata: Map<string, GgufValue>; tensors: GgufTensor[]; vocab: TinyVocab } {
  checkShape(shape);
  const s = shape;
  const vocab = tinyVocab();
  const nVocab = vocab.tokens.length;
  const headDim = s.embd / s.heads;
  const kvDim = headDim * s.headsKv;
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'qbench-tiny-llama' }],
    ['general.alignment', { type: 'uint32', value: 32 }],
    ['llama.context_length', { type: 'uint32', value: s.contextLength }],
    ['llama.embedding_length', { type: 'uint32', value: s.embd }],
    ['llama.block_count', { type: 'uint32', value: s.layers }],
    ['llama.feed_forward_length', { type: 'uint32', value: s.ff }],
    ['llama.attention.head_count', { type: 'uint32', value: s.heads }],
    ['llama.attention.head_count_kv', { type: 'uint32', value: s.headsKv }],
    ['llama.rope.dimension_count', { type: 'uint32', value: headDim }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'float32', value: 1e-5 }],
    ['llama.vocab_size', { type: 'uint32', value: nVocab }],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'float32s', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'int32s', value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'uint32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'uint32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'uint32', value: 2 }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
    ['tokenizer.ggml.add_eos_token', { type: 'bool', value: false }],
    ['tokenizer.ggml.add_space_prefix', { type: 'bool', value: true }],
  ]);
  const rng = seededRng(s.seed);
  const next = () => rng.next();
  const t = s.type;
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [s.embd, nVocab], type: t, data: matrix(next, nVocab, s.embd) },
    { name: 'output_norm.weight', dims: [s.embd], type: 'F32', data: ones(s.embd) },
    { name: 'output.weight', dims: [s.embd, nVocab], type: t, data: matrix(next, nVocab, s.embd) },
  ];
  for (let l = 0; l < s.layers; l++) {
    const b = `blk.${l}`;
    tensors.push(
      { name: `${b}.attn_norm.weight`, dims: [s.embd], type: 'F32', data: ones(s.embd) },
      { name: `${b}.attn_q.weight`, dims: [s.embd, s.embd], type: t, data: matrix(next, s.embd, s.embd) },
      { name: `${b}.attn_k.weight`, dims: [s.embd, kvDim], type: t, data: matrix(next, kvDim, s.embd) },
      { name: `${b}.attn_v.weight`, dims: [s.embd, kvDim], type: t, data: matrix(next, kvDim, s.embd) },
      { name: `${b}.attn_output.weight`, dims: [s.embd, s.embd], type: t, data: matrix(next, s.embd, s.embd) },
      { name: `${b}.ffn_norm.weight`, dims: [s.embd], type: 'F32', data: ones(s.embd) },
      { name: `${b}.ffn_gate.weight`, dims: [s.embd, s.ff], type: t, data: matrix(next, s.ff, s.embd) },
      { name: `${b}.ffn_up.weight`, dims: [s.embd, s.ff], type: t, data: matrix(next, s.ff, s.embd) },
      { name: `${b}.ffn_down.weight`, dims: [s.ff, s.embd], type: t, data: matrix(next, s.embd, s.ff) },
    );
  }
  return { metadata, tensors, vocab };
}

/** Write the tiny model to `file` (a .gguf path); answers its size in bytes. */
export async function writeTinyModel(file: string, shape: TinyModelShape = TINY_MODEL_DEFAULTS): Promise<number> {
  const m = tinyModel(shape);
  return writeGguf(file, m.metadata, m.tensors);
}
