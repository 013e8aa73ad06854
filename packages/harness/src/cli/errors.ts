/**
 * How a dsh command ends badly: a usage error (exit 2), or a failure (exit 1)
 * with a stable code. With --json the same error is the one document on
 * stdout, `{ "error": { "code", "message" } }`.
 */

/** The command line is wrong: exit 2. */
export class UsageError extends Error {
  readonly code = 'USAGE'
}

/** Rows that did not come up, one line each (file, row, cause, fix). */
export class RowsFailedError extends Error {
  readonly code = 'ROWS_FAILED'
  constructor(readonly lines: string[]) {
    super(`${lines.length === 1 ? 'a row' : `${lines.length} rows`} of the composition did not start:\n${lines.map((line) => `  ${line}`).join('\n')}\nFix the rows, or pass --allow-failed-rows to run without them.`)
  }
}

export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

/** The code an error reports: its own stable code when it has one (CompositionError, SessionError, ...), else FAILED. */
export function errorCode(error: unknown): string {
  if (error instanceof UsageError || (error as { usage?: unknown } | null)?.usage === true) return 'USAGE'
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return code
  if ((error as { name?: unknown } | null)?.name === 'CompositionError') return 'COMPOSITION_INVALID'
  return 'FAILED'
}

/** 2 for a usage error: the command line's own (UsageError) or a name it gave that is not there (a CompositionError marked usage, e.g. a misspelled preset). */
export function exitCodeOf(error: unknown): number {
  return error instanceof UsageError || (error as { usage?: unknown } | null)?.usage === true ? EXIT_USAGE : EXIT_FAILURE
}

export function errorMessage(error: unknown): string {
  return String((error as { message?: unknown } | null)?.message ?? error)
}

/** The one JSON document of a failed command. */
export function errorDocument(error: unknown): string {
  const rows = error instanceof RowsFailedError ? { rows: error.lines } : {}
  return JSON.stringify({ error: { code: errorCode(error), message: errorMessage(error), ...rows } }, null, 2)
}
