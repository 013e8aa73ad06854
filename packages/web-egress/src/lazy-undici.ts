import type * as Undici from 'undici'

let loading: Promise<typeof Undici> | undefined

/**
 * undici, imported on the first request (a fetch, a search): a process that
 * only lists or composes the providers (`dsh tools`, `dsh compose`) never
 * loads its hundred-odd modules. Types come from `import type`, which costs
 * nothing. The one loader of the family: the provider kit imports it too.
 */
export function loadUndici(): Promise<typeof Undici> {
  return (loading ??= import('undici'))
}
