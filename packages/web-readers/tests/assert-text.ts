import assert from 'node:assert/strict'

/** Each of `parts` occurs in `text`, in this order. */
export function assertInOrder(text: string, parts: string[]) {
  let from = 0
  for (const part of parts) {
    const at = text.indexOf(part, from)
    assert.ok(at >= 0, `"${part}" is missing (or out of order) in:\n${text}`)
    from = at + part.length
  }
}

/** None of `parts` occurs in `text`. */
export function assertNone(text: string, parts: string[]) {
  for (const part of parts) assert.ok(!text.includes(part), `"${part}" should have been left out of:\n${text}`)
}
