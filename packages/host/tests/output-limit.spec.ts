import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type ArtifactRef, fenceUntrusted } from 'dsh-host'
import { cutFenced, headLength, headWithNotice, limitOutput } from '../src/output-limit.js'

const artifact: ArtifactRef = { path: '/tmp/dsh-artifacts/tool-call_1-abcd.md', bytes: 1234, sha256: 'f'.repeat(64) }

/**
 * Reads a text as the model would: every tag-like `<untrusted-content` or
 * `</untrusted-content` (any case, not defanged) must be a whole marker, a
 * closing marker must close the innermost open fence, and the returned
 * ranges are where the text is inside a fence. Fails on anything else.
 */
function readFences(text: string): { inside: Array<[number, number]>; open: string[] } {
  const marker = /<(\/?)untrusted-content(?!-escaped)/gi
  const stack: Array<{ id: string; at: number }> = []
  const inside: Array<[number, number]> = []
  for (const match of text.matchAll(marker)) {
    const rest = text.slice(match.index)
    const whole = match[1]
      ? /^<\/untrusted-content id="([0-9a-f]{12})">/.exec(rest)
      : /^<untrusted-content id="([0-9a-f]{12})" source="[^"<>\n]*">/.exec(rest)
    assert.ok(whole, `a marker-like text that is not a whole marker at ${match.index}: ${JSON.stringify(rest.slice(0, 60))}`)
    if (match[1]) {
      const top = stack.pop()
      assert.equal(top?.id, whole[1], `the closing marker at ${match.index} closes the innermost open fence`)
      inside.push([top!.at, match.index! + whole[0].length])
    } else {
      stack.push({ id: whole[1], at: match.index! })
    }
  }
  return { inside, open: stack.map((item) => item.id) }
}

/**
 * Outputs as the tools render them: several fences, a page quoting fence
 * markers and holding a whole fenced page (nested, so defanged), CR LF,
 * astral characters, short lines (cut back to a line end) and one long line
 * first (cut in the middle: a page's JSON on one line).
 */
function representativeOutputs(): string[] {
  const page = fencedPage()
  return [
    [
      'Tool calls (2):\n- call_1:code:1 web_fetch: ok (3 ms)',
      `Console output:\n${fenceUntrusted(`fetched:\n${page}\nand after`, 'run_code console')}`,
      `Result (JSON):\n${fenceUntrusted(JSON.stringify({ text: page, more: ['y'.repeat(40), '😀'] }, null, 2), 'run_code result')}`,
      'Converted to fit JSON:\n- $.n: NaN became null',
    ].join('\n\n'),
    `${fenceUntrusted(JSON.stringify({ text: page, again: page }), 'run_code result')}\n\n${fenceUntrusted('second', 'https://b.example/')}`,
  ]
}

function fencedPage(): string {
  return fenceUntrusted(
    'Title: A page\n\nIt quotes <untrusted-content id="0123456789ab" source="x"> and </UNTRUSTED-CONTENT id="0123456789ab"> in its text.\r\n😀 astral 😀😀\n' +
      'x'.repeat(150) +
      '\nend <untrusted-content',
    'https://a.example/?q=<"fence">',
  )
}

describe('limitOutput: the one output limiter of every tool', () => {
  it('closes every fence it cuts and keeps its notice outside them, cut at every length', () => {
    for (const content of representativeOutputs()) {
      assert.deepEqual(readFences(content).open, [], 'the whole output is well fenced')
      for (let limit = 0; limit <= content.length; limit++) {
        const text = headWithNotice(content, limit, { threshold: 1000, artifact })
        const { inside, open } = readFences(text)
        assert.deepEqual(open, [], `cut at ${limit}: every fence is closed`)
        const notice = text.indexOf('[The complete output is ')
        assert.equal(notice, text.lastIndexOf('[The complete output is '), `cut at ${limit}: one notice`)
        assert.ok(notice > 0 || limit === 0, `cut at ${limit}: a notice after the head`)
        assert.ok(text.endsWith(`${artifact.path} (${artifact.bytes} bytes, SHA-256 ${artifact.sha256}).]`), `cut at ${limit}: the notice ends the text`)
        for (const [start, end] of inside) assert.ok(notice >= end || notice < start, `cut at ${limit}: the notice is outside the fence at ${start}..${end}`)
        const { head, shown } = cutFenced(content, limit)
        assert.ok(shown <= limit, `cut at ${limit}: at most the limit is shown (${shown})`)
        assert.ok(head.startsWith(content.slice(0, shown)), `cut at ${limit}: the head is the start of the output`)
        assert.match(text, new RegExp(`only its first ${shown} characters`), `cut at ${limit}: the notice says how much is shown`)
        assert.ok(!/[\ud800-\udbff]$/.test(content.slice(0, shown)), `cut at ${limit}: no half surrogate pair`)
      }
    }
  })

  it('returns a short output as it is and saves nothing', async () => {
    let saved = 0
    const limited = await limitOutput('short', { threshold: 1000, save: async () => (saved++, artifact) })
    assert.deepEqual(limited, { content: 'short' })
    assert.equal(saved, 0)
  })

  it('saves a long output whole and shows a head of headLength(threshold) at most', async () => {
    const content = representativeOutputs()[0].repeat(20)
    let saved: string | undefined
    const limited = await limitOutput(content, { threshold: 1000, save: async (text) => ((saved = text), artifact) })
    assert.equal(saved, content)
    assert.equal(limited.artifact, artifact)
    const shown = Number(/only its first (\d+) characters/.exec(limited.content)![1])
    assert.ok(shown <= headLength(1000) && shown >= headLength(1000) / 2, `${shown} characters shown`)
    assert.deepEqual(readFences(limited.content).open, [])
  })
})
