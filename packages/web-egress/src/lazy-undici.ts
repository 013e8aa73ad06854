import type * as Undici from 'undici'

let loading: Promise<typeof Undici> | undefined

/**
 * undici, imported on the first fetch: a process that only lists or composes
 * the providers (`dsh tools`, `dsh compose`) never loads its hundred-odd
 * modules. Types come from `import type`, which costs nothing.
 */
export function loadUndici(): Promise<typeof Undici> {
  return (loading ??= import('undici'))
}
