import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

// A forum engine's page (Discourse's shape): the app mounts on an empty element and the thread is written, for readers without scripts, inside <noscript>.
const posts = [
  ['kettle', 'March 14, 2024, 9:02pm', 'Every morning the pressure gauge on my combi boiler reads about half a bar, though I top it up each evening. There is no visible leak anywhere that I can find.'],
  ['radiant', 'March 14, 2024, 9:40pm', 'Check the pressure relief valve pipe where it leaves the house. If the end of it is wet or stained, the valve is letting water out as the system heats up.'],
  ['gasman', 'March 15, 2024, 8:12am', 'The expansion vessel has most likely lost its air charge, which makes the pressure swing and the relief valve open. Recharge it, and replace the relief valve too.'],
]
const thread = posts
  .map(([author, date, body], index) => `<div class="topic-body crawler-post" id="post_${index + 1}"><div class="crawler-post-meta"><span class="creator"><a href="/u/${author}">${author}</a></span><time class="post-time">${date}</time></div><div class="post"><p>${body}</p></div></div>`)
  .join('')
const forum = `<!doctype html><html lang="en"><head><title>Boiler pressure drops overnight - Heating Community</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"QAPage","mainEntity":{"@type":"Question","name":"Boiler pressure drops overnight"}}</script></head>
<body><section id="main"></section><script src="/assets/app.js"></script>
<noscript><header class="d-header"><a href="/">Heating Community</a></header><div id="main-outlet" class="wrap" role="main"><div id="topic-title"><h1><a href="/t/boiler-pressure/1">Boiler pressure drops overnight</a></h1></div>${thread}</div><footer class="noscript-footer-nav"><a href="/about">About</a> <a href="/privacy">Privacy</a></footer></noscript>
</body></html>`

function extract(html: string, format: 'text' | 'markdown' = 'text') {
  return extractHtml({ html, url: 'https://forum.example/t/boiler-pressure/1', format, extract: 'main' })
}

describe('a page whose content is inside <noscript>', () => {
  for (const format of ['text', 'markdown'] as const) {
    it(`is read as a reader without JavaScript sees it: every post, in order, and says so (${format})`, () => {
      const { text, warnings, signals } = extract(forum, format)
      let from = 0
      for (const [author, date, body] of posts) {
        for (const part of [author!, date!, body!.slice(0, 60)]) {
          const at = text.indexOf(part, from)
          assert.ok(at >= 0, `"${part}" is missing (or out of order) in:\n${text}`)
          from = at + part.length
        }
      }
      assert.ok(!text.includes('Privacy'), 'the crawler view\'s footer is chrome')
      assert.ok(warnings.some((warning) => /<noscript>/.test(warning)), `the warnings say where the text came from: ${warnings.join(' | ')}`)
      // What the page is judged by is what was read: a page of text, not a script-written shell.
      assert.ok(signals!.visibleWords >= 80)
    })
  }

  it('is left alone when the page shows its content beside it (an article with a "turn JavaScript on" notice and a long <noscript>)', () => {
    const article = '<p>The council approved the new bridge on Tuesday after a vote that ran late into the night, with residents on both banks filling the hall.</p>'.repeat(12)
    const notice = `<noscript><div class="js-off">${'Please enable JavaScript to see the comments and the interactive map of the crossing. '.repeat(20)}</div></noscript>`
    const html = `<!doctype html><html><head><title>Bridge approved</title></head><body><article>${article}</article>${notice}</body></html>`
    const { text, warnings } = extract(html)
    assert.match(text, /The council approved the new bridge/)
    assert.ok(!text.includes('Please enable JavaScript'))
    assert.ok(!warnings.some((warning) => /<noscript>/.test(warning)))
  })

  it('is not read past MAX_NOSCRIPT_CHARS (a <noscript> larger than that is left out)', async () => {
    const { MAX_NOSCRIPT_CHARS } = await import('../src/html/noscript-view.js')
    const huge = `<!doctype html><html><head><title>t</title></head><body><div id="app"></div><noscript><p>${'word '.repeat(MAX_NOSCRIPT_CHARS / 5 + 10)}</p></noscript></body></html>`
    const { warnings } = extract(huge)
    assert.ok(!warnings.some((warning) => /<noscript>/.test(warning)))
  })
})
