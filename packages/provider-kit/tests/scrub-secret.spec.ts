import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { quoteProviderText, scrubSecret, scrubSecretDeep, scrubSecretFromError } from '../src/scrub-secret.js'
import { cleanUntrustedLine, removeInvisible } from 'dsh-host'
import { WebError } from 'dsh-web'

const KEY = 'sk-proj-Zq8vL2mN4xR7tY1wK9pB3cD6'
const HEX_KEY = 'sk-4f9a0c1e7b3d5a2f8e6c0b9d1a3f5e7c'
const b64 = (text: string) => Buffer.from(text).toString('base64')
const b64url = (text: string) => Buffer.from(text).toString('base64url')
const hex = (text: string) => Buffer.from(text).toString('hex')
/** The key with `between` after each of its characters. */
const interleaved = (key: string, between: string) => Array.from(key, (char) => char + between).join('')

describe('scrubSecret: the key in every form a provider may echo it', () => {
  const table: Array<[what: string, text: string, key: string, output: string]> = [
    ['the key itself', `Incorrect API key provided: ${KEY}.`, KEY, 'Incorrect API key provided: [redacted].'],
    ['every occurrence', `${KEY} and ${KEY}`, KEY, '[redacted] and [redacted]'],
    ['its base64 form', `token ${b64(KEY)} end`, KEY, 'token [redacted] end'],
    ['its base64url form', `token ${b64url(KEY + '?>')} end`, KEY + '?>', 'token [redacted] end'],
    ['its URL-encoded form', `?key=${encodeURIComponent(KEY + '/+=')}&x=1`, KEY + '/+=', '?key=[redacted]&x=1'],
    ['its URL-encoded form with lower-case escapes', `?key=${encodeURIComponent(KEY + '/+=').replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())}&x=1`, KEY + '/+=', '?key=[redacted]&x=1'],
    ['its JSON-escaped form', `{"echo":${JSON.stringify(KEY + '"\\')}}`, KEY + '"\\', '{"echo":"[redacted]"}'],
    ['a cut echo: its first 12 characters', `key ${KEY.slice(0, 12)}... refused`, KEY, 'key [redacted]... refused'],
    ['a masked echo: its last 10 characters', `key sk-proj-****${KEY.slice(-10)} refused`, KEY, 'key sk-proj-****[redacted] refused'],
    ['a run from the middle', `saw ${KEY.slice(10, 20)} there`, KEY, 'saw [redacted] there'],
    ['a hex key in upper case', `Key ${HEX_KEY.toUpperCase()} is invalid`, HEX_KEY, 'Key [redacted] is invalid'],
    ['a part of a hex key in another case', `ends in ${HEX_KEY.slice(-12).toUpperCase()}`, HEX_KEY, 'ends in [redacted]'],
    ['the public word prefix alone is ordinary text', 'OpenAI keys start with sk-proj- these days', KEY, 'OpenAI keys start with sk-proj- these days'],
    ['a run of 7 characters is not an echo', `near ${KEY.slice(12, 19)} miss`, KEY, `near ${KEY.slice(12, 19)} miss`],
    ['a non-hex key is case-sensitive', `shout ${KEY.toUpperCase()}`, KEY, `shout ${KEY.toUpperCase()}`],
    ['a short key (12 characters) is scrubbed whole but not by runs', 'abc123def456 and abc123de', 'abc123def456', '[redacted] and abc123de'],
    ['a key under 4 characters is not scrubbed', 'abc abc', 'abc', 'abc abc'],
    ['its hex form', `echo ${hex(KEY)} end`, KEY, 'echo [redacted] end'],
    ['its hex form in upper case', `echo ${hex(KEY).toUpperCase()} end`, KEY, 'echo [redacted] end'],
    ['every byte percent-encoded', `?k=${hex(KEY).replace(/../g, '%$&')}&x`, KEY, '?k=[redacted]&x'],
    ['every byte percent-encoded, upper-case escapes', `?k=${hex(KEY).replace(/../g, '%$&').toUpperCase()}&x`, KEY, '?k=[redacted]&x'],
    ['every character a JSON \\u escape', `"${Array.from(KEY, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`, KEY, '"[redacted]"'],
    ['zero-width spaces between its characters', `key ${interleaved(KEY, '\u200b')} end`, KEY, 'key [redacted] end'],
    ['bidi controls and soft hyphens between its characters', `key ${interleaved(KEY, '\u202e\u00ad\u2066')} end`, KEY, 'key [redacted] end'],
    ['tag characters and variation selectors between its characters', `key ${interleaved(KEY, '\u{E0041}\ufe0f')} end`, KEY, 'key [redacted] end'],
    ['other format characters (Cf) between its characters', `key ${interleaved(KEY, '\u0600\u{1D173}\u{110BD}')} end`, KEY, 'key [redacted] end'],
    ['escape sequences between its characters', `key ${interleaved(KEY, '\x1b[0m')} end`, KEY, 'key [redacted] end'],
    ['invisible characters in a part of it', `cut ${interleaved(KEY.slice(10, 22), '\u200c')} there`, KEY, 'cut [redacted] there'],
    ['invisible characters around a text without the key stay', 'emoji 👩\u200d💻 and \u200fRTL', KEY, 'emoji 👩\u200d💻 and \u200fRTL'],
  ]
  for (const [what, text, key, output] of table) {
    it(what, () => {
      const scrubbed = scrubSecret(text, key)
      assert.equal(scrubbed, output)
      if (key.length < 4) return
      assert.ok(!scrubbed.includes(key), scrubbed)
      for (const form of [b64(key), b64url(key), encodeURIComponent(key), JSON.stringify(key).slice(1, -1)]) {
        if (form.length >= 8) assert.ok(!scrubbed.includes(form.replace(/=+$/, '')), `${form} in ${scrubbed}`)
      }
      if (key.length > 12) {
        for (let start = 0; start + 8 <= key.length; start++) {
          const run = key.slice(start, start + 8)
          if (start + 8 > 'sk-proj-'.length && /^sk-proj-/.test(key)) assert.ok(!scrubbed.includes(run), `run ${run} in ${scrubbed}`)
        }
      }
    })
  }

  it('leaves no key for the line cleaning to join, whatever draws nothing between its characters', () => {
    const between = ['\u200b', '\u2060', '\u202a', '\u2069', '\u00ad', '\u034f', '\u180e', '\ufeff', '\u{E0020}', '\u{E01EF}', '\x1b[31m', '\x1b]0;t\x07', '\x9b1m', '\u200b\x1b[m', '\x1b\u200b[m']
    for (const chars of between) {
      const echoed = `error: key ${interleaved(KEY, chars)} refused`
      const scrubbed = scrubSecret(echoed, KEY)
      for (const shown of [scrubbed, removeInvisible(scrubbed), cleanUntrustedLine(scrubbed, { maxLength: 1000 }), quoteProviderText(echoed, KEY, 1000)]) {
        assert.ok(!shown.includes(KEY) && !removeInvisible(shown).includes(KEY), `${JSON.stringify(chars)}: ${JSON.stringify(shown)}`)
        assert.ok(!removeInvisible(shown).includes(KEY.slice(8, 16)), `${JSON.stringify(chars)}: no run of the key in ${JSON.stringify(shown)}`)
      }
    }
  })

  it('the Basic credential keeps no base64 run of the key at any alignment', () => {
    for (const user of ['u', 'us', 'use']) {
      const header = b64(`${user}:${KEY}`)
      const scrubbed = scrubSecret(`Basic ${header}`, KEY)
      assert.match(scrubbed, /\[redacted\]/, user)
      assert.ok(!scrubbed.includes(header.slice(8, 30)), `${user}: ${scrubbed}`)
    }
  })

  it('scrubs every string of a parsed answer, keys of objects untouched, the input unchanged', () => {
    const answer = { content: [{ type: 'text', text: `your key is ${KEY}` }, { type: 'x', title: `b64 ${b64(KEY)}`, n: 3, ok: true, none: null }] }
    const scrubbed = scrubSecretDeep(answer, KEY)
    assert.deepEqual(scrubbed, { content: [{ type: 'text', text: 'your key is [redacted]' }, { type: 'x', title: scrubSecret(`b64 ${b64(KEY)}`, KEY), n: 3, ok: true, none: null }] })
    assert.ok(!JSON.stringify(scrubbed).includes(b64(KEY).slice(0, 20)))
    assert.equal(answer.content[0].text, `your key is ${KEY}`)
  })

  it('scrubs a value nested 200,000 levels deep without recursion (it overflowed the stack)', () => {
    let value: unknown = { text: `deep ${KEY}` }
    for (let level = 0; level < 100_000; level++) value = { a: [value] }
    let scrubbed: any = scrubSecretDeep(value, KEY)
    for (let level = 0; level < 100_000; level++) scrubbed = scrubbed.a[0]
    assert.deepEqual(scrubbed, { text: 'deep [redacted]' })
    const own = scrubSecretDeep(JSON.parse(`{"__proto__":{"x":"${KEY}"}}`), KEY)
    assert.deepEqual(Object.keys(own), ['__proto__'], 'a __proto__ key stays an own key')
    assert.equal(Object.getPrototypeOf(own), Object.prototype)
  })

  it('scrubs an error\'s message and string details in place', () => {
    const error = new WebError('WEB_PROVIDER_ERROR', `bad ${KEY}`, { details: { providerCode: KEY.slice(0, 14), status: 400 } })
    assert.equal(scrubSecretFromError(error, KEY), error)
    assert.equal(error.message, 'bad [redacted]')
    assert.ok(!error.stack?.includes(KEY), error.stack)
    assert.deepEqual(error.details, { providerCode: '[redacted]', status: 400 })
  })

  it('quotes provider text scrubbed, on one clean line, cut visibly', () => {
    assert.equal(quoteProviderText(`bad key\n\x1b[31m${KEY}\x1b[0m ${'x'.repeat(20)}`, KEY, 20), 'bad key [redacted] x… (19 more characters)')
  })
})
