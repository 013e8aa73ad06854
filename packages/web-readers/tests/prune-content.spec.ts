import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseHTML } from 'linkedom'
import type { DomElement } from '../src/html/dom.js'
import { pruneContent, trimLeadingLabels } from '../src/html/prune-content.js'
import { toPlainText } from '../src/html/to-text.js'

function content(html: string): DomElement {
  const { document } = parseHTML(`<html><body><div id="root">${html}</div></body></html>`) as unknown as { document: { getElementById(id: string): DomElement } }
  return document.getElementById('root')
}

const PARAGRAPH = '<p>A full sentence of article text that a reader came for, long enough to matter here.</p>'

describe('clean-ups after readability', () => {
  it('drops captions, link lists and empty items, keeps prose with links', () => {
    const root = content(
      `${PARAGRAPH.repeat(4)}<figure><img src="https://x.test/a.jpg"><figcaption>Photo: Someone / Agency</figcaption></figure>` +
        `<p>Prose with <a href="https://x.test/one">one link</a> inside a long enough sentence of text.</p>` +
        `<ul><li><a href="https://x.test/r1">Related story one</a></li><li><a href="https://x.test/r2">Related story two</a></li><li></li></ul>` +
        `<span class="image-credit">Credit: Agency</span>`,
    )
    pruneContent(root)
    const text = toPlainText(root)
    assert.doesNotMatch(text, /Photo: Someone|Related story|Credit: Agency/)
    assert.match(text, /Prose with one link inside/)
    assert.ok(root.querySelector('img'), 'the image itself stays')
  })

  it('keeps link lists that are most of the content: a listing of teasers is the page, not a menu beside it (regression: WCXB listings came out empty)', () => {
    const teasers = ['Council approves the new bridge', 'Harbour dredging starts in May', 'School opens a second campus', 'Ferry timetable changes for summer', 'Library extends its opening hours']
      .map((title, index) => `<div class="card"><ul><li><a href="https://x.test/news/${index}">${title}</a></li><li><a href="https://x.test/section/${index}">Local news</a></li></ul></div>`)
      .join('')
    const listing = content(`<p>Latest news.</p>${teasers}`)
    pruneContent(listing)
    const text = toPlainText(listing)
    for (const title of ['Council approves the new bridge', 'Library extends its opening hours']) assert.match(text, new RegExp(title))
    // The same lists beside an article are still its menu.
    const article = content(`${PARAGRAPH.repeat(8)}${teasers}`)
    pruneContent(article)
    assert.doesNotMatch(toPlainText(article), /Council approves/)
  })

  it('drops blocks whose class or id names furniture, never inline elements or a block holding most of the text', () => {
    const root = content(
      `<div class="article-body has-share-tools">${PARAGRAPH.repeat(3)}<p>The <a id="auto-tag_doobie" href="https://x.test/t">Doobie Brothers</a> will tour, in a full sentence.</p></div>` +
        `<div class="c-social-share">Share this story on Facebook Twitter</div><aside class="relatedPosts"><p>A related story</p></aside>` +
        `<section id="newsletterSignup"><p>Get our newsletter</p></section><div class="sdc-article-tweet"><blockquote>An embedded post, quoted.</blockquote></div>` +
        `<div class="asset_gallery"><p>Photo caption in a slideshow</p></div><p class="byline">By A. Writer</p>`,
    )
    pruneContent(root)
    const text = toPlainText(root)
    assert.doesNotMatch(text, /Share this|related story|newsletter|slideshow|A\. Writer/)
    assert.match(text, /The Doobie Brothers will tour/)
    assert.match(text, /An embedded post/)
    assert.equal((text.match(/A full sentence/g) ?? []).length, 3, 'the container named share-tools holds most of the text and stays')
  })

  it('keeps blocks named as furniture when they are the content: a thread whose posts are named comments (regression: WCXB forum threads came out nearly empty)', () => {
    const posts = [
      ['crumb', 'My rye starter is ten days old and this morning it smelled sharply of nail varnish. Is it ruined, or simply hungry?'],
      ['levain', 'That acetone smell means the yeast has run out of food. Discard most of it and feed it twice a day for a few days.'],
      ['oven', 'Keep it somewhere warmer too. Mine only settled down once I moved it from a cold window to beside the radiator.'],
      ['crumb', 'Two days of feeding twice a day and the smell has gone. It doubled in six hours today, so I will bake at the weekend.'],
    ]
      .map(([author, body]) => `<div class="comment comment-post"><div class="comment-author">${author}</div><div class="comment-body"><p>${body}</p></div></div>`)
      .join('')
    const thread = content(`<h1>Sourdough starter smells of nail varnish</h1><div class="comments-list">${posts}</div>`)
    pruneContent(thread)
    assert.match(toPlainText(thread), /nail varnish\. Is it ruined[\s\S]*acetone smell[\s\S]*cold window[\s\S]*bake at the weekend/)
    // The same comments below an article of a few paragraphs are furniture beside it.
    const article = content(`${PARAGRAPH.repeat(8)}<div class="comments-list">${posts}</div>`)
    pruneContent(article)
    const text = toPlainText(article)
    assert.doesNotMatch(text, /acetone smell/)
    assert.equal((text.match(/A full sentence/g) ?? []).length, 8)
  })

  it('drops short unpunctuated labels before the first paragraph only', () => {
    const root = content(`<div>Updated 10:31, Tue, Nov 19</div><p>By A. Writer</p>${PARAGRAPH.repeat(3)}<h2>A heading in the body</h2>${PARAGRAPH}`)
    trimLeadingLabels(root)
    const text = toPlainText(root)
    assert.doesNotMatch(text, /Updated 10:31|By A\. Writer/)
    assert.match(text, /^A full sentence/)
    assert.match(text, /A heading in the body/)
  })

  it('reads a sentence end in any script: a Japanese opening paragraph is not a label', () => {
    const root = content(`<p>先日、ニュースを耳にしました。</p><p>報道によると、今回販売されたのは。</p>${PARAGRAPH.repeat(3)}`)
    trimLeadingLabels(root)
    assert.match(toPlainText(root), /^先日/)
  })

  it('keeps content made only of short lines whole (a specification, a list): nothing precedes a first paragraph', () => {
    const lines = ['Model FR-2', 'Width 120 mm', 'Height 80 mm', 'Weight 350 g', 'Battery 4000 mAh', 'Colour Slate grey']
    const root = content(`<h1>Field radio specifications</h1><ul>${lines.map((line) => `<li>${line}</li>`).join('')}</ul>`)
    trimLeadingLabels(root)
    const text = toPlainText(root)
    for (const line of ['Field radio specifications', ...lines]) assert.match(text, new RegExp(line))
  })
})
