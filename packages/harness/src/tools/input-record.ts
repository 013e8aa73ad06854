import { createHash } from 'node:crypto'
import type { JsonValue } from 'dsh-host'
import { inspectJson, type JsonInspection, previewJson } from '../json-value.js'

export interface InputLimits {
  /** Deepest nesting of objects and arrays in one input. */
  maxDepth: number
  /** Largest input, in UTF-8 bytes of its JSON text. */
  maxBytes: number
}

export const DEFAULT_INPUT_LIMITS: InputLimits = { maxDepth: 64, maxBytes: 1024 * 1024 }

/** Inputs up to this many bytes of JSON are logged whole; larger ones as a preview with their size and sha256. */
export const INPUT_LOGGED_WHOLE_BYTES = 32 * 1024

/** Characters of JSON text in the preview of an input that is not logged whole. */
export const INPUT_PREVIEW_CHARS = 2000

/**
 * Checks a tool input against the limits in one walk without recursion, so
 * an input nested 100,000 levels deep is refused instead of overflowing the
 * stack. Counting stops at 64 times the size limit (enough to report a
 * refused input's size; values that share references could count forever).
 */
export function inspectInput(input: unknown, limits: InputLimits): JsonInspection {
  return inspectJson(input, 'input', { maxDepth: limits.maxDepth, maxBytes: limits.maxBytes, countUpTo: limits.maxBytes * 64 })
}

/** The model-facing reason for an input that broke a rule of `inspectInput`, naming the limit and where. */
export function describeInputRefusal(toolName: string, inspection: JsonInspection): string {
  switch (inspection.rule) {
    case 'depth':
      return `The input of ${toolName} is refused: ${inspection.problem}. The limit is the tools row's inputMaxDepth; send flatter arguments.`
    case 'bytes':
      return `The input of ${toolName} is refused: ${inspection.problem}. The limit is the tools row's inputMaxBytes; send less data in one call.`
    default:
      return `The input of ${toolName} must be a JSON object of arguments: ${inspection.problem}.`
  }
}

/**
 * What the `tool/call` event holds about the input: the input itself when it
 * passed the checks and is small; else its size (and sha256 of its JSON text,
 * when it passed) with a bounded preview. The session is never handed a
 * multi-megabyte input, and a refused input is never serialised whole.
 */
export function recordInput(input: unknown, inspection: JsonInspection): Record<string, JsonValue> {
  if (inspection.problem) {
    return {
      ...(inspection.complete ? { inputBytes: inspection.bytes } : {}),
      inputPreview: previewJson(input, INPUT_PREVIEW_CHARS),
    }
  }
  if (inspection.bytes <= INPUT_LOGGED_WHOLE_BYTES) return { input: input as JsonValue, inputBytes: inspection.bytes }
  const text = JSON.stringify(input)
  return {
    inputBytes: inspection.bytes,
    inputSha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    inputPreview: text.slice(0, INPUT_PREVIEW_CHARS),
  }
}
