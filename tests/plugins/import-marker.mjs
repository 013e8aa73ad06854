// A plugin whose import itself leaves a mark: the tests use it to prove that a disabled row is never imported.
globalThis.__dshImportMarker = (globalThis.__dshImportMarker ?? 0) + 1

export const name = 'test-import-marker'

export function apply() {}
