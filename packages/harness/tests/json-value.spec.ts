import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { findNonJson, inspectJson, previewJson } from '../src/json-value.js'

function deepArray(levels: number, inner: unknown = 1): unknown {
  let value = inner
  for (let level = 0; level < levels; level++) value = [value]
  return value
}

const SAMPLES: unknown[] = [
  { a: 1, b: [1, 2, { c: 'line\nbreak "quoted" \\ tab\t bell\u0007' }], d: null, e: true, f: false },
  { 'not an identifier': 'é ü 中文 😀', lone: '\ud800 high \udc00 low', zero: -0, big: 1e21, small: 5e-7, fraction: 0.1 },
  [], {}, [[], {}, [[]]], '', 'plain', 0, -12.5, null, true,
  { nested: { deeper: { list: [{ x: 'y' }, [1, [2, [3]]]] } } },
]

describe('JSON values: an iterative walk', () => {
  it('checks a value nested 100,000 levels deep without overflowing the stack (was: Maximum call stack size exceeded)', () => {
    assert.equal(findNonJson(deepArray(100_000)), undefined)
    const inspection = inspectJson(deepArray(100_000), 'input')
    assert.equal(inspection.depth, 100_000)
    assert.equal(inspection.bytes, 2 * 100_000 + 1)
  })

  it('finds a cycle, a hole, a class instance and what JSON cannot hold, naming the path', () => {
    const cycle: any = { a: { b: [] } }
    cycle.a.b.push(cycle)
    assert.equal(findNonJson(cycle), '$.a.b[0] is a circular reference')
    assert.equal(findNonJson({ list: [1, , 3] }), '$.list[1] is a hole in a sparse array')
    assert.equal(findNonJson({ when: new Date(0) }, 'data'), 'data.when is a Date object, not plain JSON data')
    assert.equal(findNonJson({ 'odd key': undefined }), '$["odd key"] is undefined, which JSON cannot hold')
    assert.equal(findNonJson([NaN]), '$[0] is NaN, which JSON cannot hold')
    const deepCycle: any = { next: null }
    let tail = deepCycle
    for (let level = 0; level < 50_000; level++) tail = tail.next = { next: null }
    tail.next = deepCycle
    assert.match(findNonJson(deepCycle)!, /^\$\.next\.next\.next\.next\.next\.next…\(49989 more levels\)…(\.next){6} is a circular reference$/)
  })

  it('counts exactly the UTF-8 bytes of JSON.stringify, escapes and surrogates included', () => {
    for (const sample of SAMPLES) {
      assert.equal(inspectJson(sample).bytes, Buffer.byteLength(JSON.stringify(sample), 'utf8'), JSON.stringify(sample))
    }
  })

  it('names the first limit broken, the path of a too-deep container and the largest part of a too-large value', () => {
    const deep = inspectJson({ ok: 1, text: deepArray(10) }, 'input', { maxDepth: 4 })
    assert.equal(deep.rule, 'depth')
    assert.equal(deep.problem, 'input.text[0][0][0] is nested 5 levels deep, deeper than the limit of 4')
    const large = inspectJson({ small: 'a', big: 'b'.repeat(5000) }, 'input', { maxBytes: 1024 })
    assert.equal(large.rule, 'bytes')
    assert.equal(large.problem, 'input is 5,022 bytes (4.9 KiB) as JSON, more than the limit of 1,024 bytes (1.0 KiB); the largest part is input.big, 5,002 bytes (4.9 KiB)')
    assert.equal(inspectJson({ a: [[1]] }, 'input', { maxDepth: 3, maxBytes: 100 }).problem, undefined)
  })

  it('stops counting at countUpTo, so shared references cannot make it walk for ever', () => {
    let shared: unknown[] = []
    for (let level = 0; level < 60; level++) shared = [shared, shared] // 2^60 leaves when serialised
    const inspection = inspectJson(shared, 'input', { maxBytes: 1000, countUpTo: 64_000 })
    assert.equal(inspection.complete, false)
    assert.equal(inspection.rule, 'bytes')
    assert.match(inspection.problem!, /^input is at least 64,0\d\d bytes/)
  })

  it('previews the start of the JSON text without serialising the whole', () => {
    for (const sample of SAMPLES) assert.equal(previewJson(sample, 40), JSON.stringify(sample).slice(0, 40))
    assert.equal(previewJson(deepArray(100_000), 500), '['.repeat(500))
    assert.equal(previewJson({ text: 'x'.repeat(5_000_000) }, 20), '{"text":"xxxxxxxxxxx')
    const cycle: any = { name: 'loop' }
    cycle.self = cycle
    assert.equal(previewJson({ cycle, when: new Date(0), fn: () => 1, n: NaN }, 200), '{"cycle":{"name":"loop","self":"[circular]"},"when":"[Date object]","fn":"[function]","n":"[NaN]"}')
  })
})
