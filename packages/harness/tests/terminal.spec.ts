import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SessionEvent } from 'dsh-host'
import { renderEvents, renderOutcome } from '../src/cli/render.js'
import { escapeForTerminal, renderForTerminal } from '../src/cli/terminal.js'

describe('escapeForTerminal: content never acts on the terminal', () => {
  const table: Array<[what: string, input: string, output: string]> = [
    ['plain text, newlines and tabs are kept', 'a\n\tb', 'a\n\tb'],
    ['ESC of an SGR sequence is written as \\x1b', '\x1b[31mred\x1b[0m', '\\x1b[31mred\\x1b[0m'],
    ['an OSC window title: ESC and BEL written out', '\x1b]0;pwned\x07', '\\x1b]0;pwned\\x07'],
    ['CR (which overwrites a line) and backspace', 'safe\rEVIL\bX', 'safe\\x0dEVIL\\x08X'],
    ['NUL and DEL', '\x00\x7f', '\\x00\\x7f'],
    ['8-bit CSI and the other C1 controls', '\x9b31m\x85', '\\x9b31m\\x85'],
    ['bidi overrides, embeddings, isolates and marks', 'a\u202Eb\u202Ac\u2066d\u2069\u200F', 'a\\u202eb\\u202ac\\u2066d\\u2069\\u200f'],
    ['non-Latin text and emoji (joiners included) are kept', 'Привет مرحبا 👨‍👩‍👧', 'Привет مرحبا 👨‍👩‍👧'],
  ]
  for (const [what, input, output] of table) it(what, () => assert.equal(escapeForTerminal(input), output))

  it('renderForTerminal escapes content first, then adds only its own styling', () => {
    const rendered = renderForTerminal('# Title \x1b]0;pwned\x07\n**bold \x1b[31m**')
    assert.equal(rendered, '\x1b[1mTitle \\x1b]0;pwned\\x07\x1b[22m\n\x1b[1mbold \\x1b[31m\x1b[22m')
  })

  it('a tool outcome and a session log are printed with their control characters escaped', () => {
    const outcome = renderOutcome('page \x1b[2J\x07 text')
    assert.equal(outcome, 'page \\x1b[2J\\x07 text')
    // JSON.stringify escapes C0 but leaves C1 controls and bidi characters raw.
    const event: SessionEvent = { seq: 1, time: '2026-01-01T00:00:00.000Z', type: 'tool/result', visibility: 'surface', data: { text: '\x9b31m\u202Eevil' } } as SessionEvent
    const shown = renderEvents([event])
    assert.doesNotMatch(shown, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/)
    assert.match(shown, /\\x9b31m\\u202eevil/)
  })
})
