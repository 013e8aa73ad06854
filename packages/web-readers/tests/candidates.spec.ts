import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseHTML } from 'linkedom'
import { chooseCandidate, widenToList } from '../src/html/choose-candidate.js'
import { containerCandidate } from '../src/html/container-candidate.js'
import type { DomElement } from '../src/html/dom.js'
import { descendants, measureText, textReaches } from '../src/html/dom-walk.js'
import { listCandidate } from '../src/html/list-candidate.js'
import { textBlocks } from '../src/html/text-blocks.js'
import { toPlainText } from '../src/html/to-text.js'

function body(html: string): DomElement {
  const { document } = parseHTML(`<html><body>${html}</body></html>`) as unknown as { document: { body: DomElement } }
  return document.body
}

const sentence = (topic: string) => `<p>A full sentence about ${topic}, long enough to read as the prose of an article and not as a label.</p>`
const ARTICLE = ['the bridge', 'the council vote', 'the budget', 'the repairs'].map(sentence).join('')
const TEASERS = '<div class="more"><h3>Read next</h3><div><h4><a href="/a">Another story</a></h4><p>Its summary, a sentence of a few words.</p></div><div><h4><a href="/b">A third story</a></h4><p>Its summary, a sentence of a few words.</p></div></div>'

describe('text blocks', () => {
  it('splits at every block boundary, keeps text loose beside child blocks, and counts link characters', () => {
    const blocks = textBlocks(body('<div>Loose words <a href="/x">linked</a><p>A paragraph</p>tail text</div><ul><li><a href="/y">all link</a></li></ul>'))
    assert.deepEqual(blocks.map((block) => [block.text, block.linkChars]), [['Loose words linked', 6], ['A paragraph', 0], ['tail text', 0], ['all link', 8]])
    assert.equal(blocks[1]!.element.localName, 'p')
  })

  it('walks a deep tree without recursion', () => {
    const deep = body(`${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}`)
    assert.deepEqual(textBlocks(deep).map((block) => block.text), ['deep'])
  })
})

describe('the container the markup names as the article', () => {
  it('takes itemprop=articleBody or an article-and-body class before a bare <article>, and leaves the page as it was', () => {
    const page = body(`<article><div class="intro">${sentence('an intro')}${sentence('more intro')}${sentence('yet more')}</div><div class="story__body">${ARTICLE}</div></article>`)
    const before = page.innerHTML
    const copy = containerCandidate(page)!
    assert.match(toPlainText(copy), /^A full sentence about the bridge/)
    assert.doesNotMatch(toPlainText(copy), /intro/)
    assert.equal(page.innerHTML, before, 'the document is untouched (readability reads it next)')
  })

  it('drops the chrome inside the container: header, navigation, forms, furniture', () => {
    const copy = containerCandidate(body(`<article><header><h1>Headline</h1><p>By A. Writer</p></header><nav><a href="/">Home</a></nav>${ARTICLE}<form><button>Subscribe</button></form><div class="share-tools">Share on Facebook</div></article>`))!
    assert.doesNotMatch(toPlainText(copy), /Headline|A\. Writer|Home|Subscribe|Facebook/)
    assert.match(toPlainText(copy), /the repairs/)
  })

  it('tries the next candidate when the first one, cleaned, keeps too little text', () => {
    const copy = containerCandidate(body(`<div class="article-body"><nav>${'<a href="/x">A link to another section of the site</a> '.repeat(8)}</nav></div><article>${ARTICLE}</article>`))!
    assert.match(toPlainText(copy), /the bridge/)
  })

  it('gives no candidate when prose runs on after the container (markup that closed it early), but does when other articles follow', () => {
    assert.equal(containerCandidate(body(`<article>${ARTICLE}</article>${sentence('the rest of the story')}${sentence('its ending')}`)), undefined)
    const teasers = `<article class="teaser">${sentence('another story')}</article><article class="teaser">${sentence('a third story')}</article>`
    assert.ok(containerCandidate(body(`<div><article class="main">${ARTICLE}</article>${teasers}</div>`)))
  })

  it('widens one post of a thread to the whole thread', () => {
    const post = (text: string) => `<article class="post"><div class="user">someone</div><div class="message">${sentence(text)}</div></article>`
    const copy = containerCandidate(body(`<div class="thread">${post('the first post')}${post('the second post')}${post('the third post')}</div>`))!
    assert.match(toPlainText(copy), /first post[\s\S]*second post[\s\S]*third post/)
  })

  it('keeps the first of a run of whole articles (what infinite scrolling appends)', () => {
    const story = (topic: string) => `<article class="story"><h2>${topic}</h2>${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16].map((n) => sentence(`${topic} ${n}`)).join('')}</article>`
    const copy = containerCandidate(body(`<div class="stream">${story('Budget')}${story('Weather')}${story('Football')}</div>`))!
    assert.match(toPlainText(copy), /Budget 16/)
    assert.doesNotMatch(toPlainText(copy), /Weather|Football/)
  })
})

describe('choosing between the two candidates', () => {
  it('keeps the shorter one when the longer holds it all: the rest is what the other method let in', () => {
    const scored = body(`<div>${ARTICLE}${TEASERS}</div>`)
    const named = body(`<div>${ARTICLE}</div>`)
    assert.equal(chooseCandidate({ scored, named }), 'named')
    assert.equal(chooseCandidate({ scored: named, named: scored }), 'scored')
  })

  it("keeps readability's when the markup's container is a small part of it: an introduction, not the article with less around it", () => {
    const sections = ['the survey', 'the choice of system', 'the installation', 'the grants', 'the aftercare', 'the warranty', 'the support line', 'the prices']
    const scored = body(`<div>${sentence('the service')}${sections.map((topic) => `<h2>About ${topic}</h2>${sentence(topic)}${sentence(`more of ${topic}`)}`).join('')}</div>`)
    const named = body(`<div>${sentence('the service')}</div>`)
    assert.equal(chooseCandidate({ scored, named }), 'scored')
  })

  it("keeps readability's when the two found different text", () => {
    const scored = body(`<div>${ARTICLE}</div>`)
    const named = body(`<div>${sentence('something else')}${sentence('another thing')}</div>`)
    assert.equal(chooseCandidate({ scored, named }), 'scored')
  })

  it("keeps the markup's container when readability's choice is a small part of it: the intro of a listing, not the listing", () => {
    const entry = (n: number) => `<li><a href="/item/${n}">Item number ${n}</a>: a short description of item ${n}, a sentence long.</li>`
    const intro = `<div class="intro">${sentence('the catalogue')}</div>`
    const grid = `<ul class="grid">${Array.from({ length: 12 }, (_, n) => entry(n)).join('')}</ul>`
    const named = body(`<main>${intro}${grid}</main>`)
    assert.equal(chooseCandidate({ scored: body(intro), named }), 'named')
  })

  it("keeps the markup's container over a short block readability found elsewhere (a sidebar's note), but not over an article beside a list", () => {
    const entry = (n: number) => `<li><a href="/item/${n}">Item number ${n}</a>: a short description of item ${n}, a sentence long.</li>`
    const named = body(`<main><ul class="grid">${Array.from({ length: 12 }, (_, n) => entry(n)).join('')}</ul></main>`)
    assert.equal(chooseCandidate({ scored: body(`<div>${sentence('a note in the sidebar')}</div>`), named }), 'named')
    const comments = body(`<ol class="replies">${Array.from({ length: 80 }, (_, n) => entry(n)).join('')}</ol>`)
    const article = body(`<div>${Array.from({ length: 24 }, (_, n) => sentence(`part ${n} of the story`)).join('')}</div>`)
    assert.equal(chooseCandidate({ scored: article, named: comments }), 'scored')
  })

  it('keeps the longer one on a list page when what it adds lies inside the items (authors, dates)', () => {
    const post = (author: string, text: string, withAuthor: boolean) => `<article class="post">${withAuthor ? `<div class="user">${author}</div>` : ''}<div class="text">${sentence(text)}</div><div class="date">a date</div></article>`
    const thread = (withAuthor: boolean) => `<div>${['one', 'two', 'three', 'four'].map((name) => post(`member ${name}`, `post ${name}`, withAuthor)).join('')}</div>`
    assert.equal(chooseCandidate({ scored: body(thread(false)), named: body(thread(true)) }), 'named')
    assert.equal(chooseCandidate({ scored: body(thread(true)), named: body(thread(false)) }), 'scored')
  })
})

describe('text measures', () => {
  it("give every element's textContent length, white space collapsed and trimmed, and textReaches agrees with it", () => {
    const root = body(`<div> a <b>  b </b>\n<i>\t</i><span></span><p>  </p>c<!-- no -->  <p>d <a href="/x"> e </a></p>   </div><p>\u00a0x\u00a0</p><ul><li> </li><li>one<b> two</b></li></ul>`)
    const measures = measureText(root)
    for (const element of [root, ...descendants(root)]) {
      const expected = (element.textContent ?? '').replace(/\s+/g, ' ').trim().length
      assert.equal(measures.get(element)!.length, expected, element.outerHTML)
      assert.ok(textReaches(element, expected), element.outerHTML)
      assert.ok(!textReaches(element, expected + 1), element.outerHTML)
    }
  })
})

describe('widening a fragment to the page\'s list', () => {
  const post = (author: string, paragraphs: string[]) => `<div class="msg m-${author.length}"><div class="who">${author} wrote</div><div class="text">${paragraphs.map(sentence).join('')}</div></div>`
  const board = `<div id="board">${post('ann', ['the question'])}${post('bo', ['a short answer'])}${post('cyd', ['the long answer 1', 'the long answer 2', 'the long answer 3'])}${post('dee', ['thanks'])}</div>`

  it('keeps every item when the chosen candidate is one item of them', () => {
    const list = listCandidate(body(`<div class="top"><a href="/">Home</a></div>${board}`))
    const chosen = body(['the long answer 1', 'the long answer 2', 'the long answer 3'].map(sentence).join(''))
    const wider = widenToList(chosen, list)!
    assert.match(toPlainText(wider), /ann wrote[\s\S]*the question[\s\S]*bo wrote[\s\S]*long answer 3[\s\S]*thanks/)
  })

  it("keeps every item, linked titles and all, when the chosen candidate spans the items but its cleaning left only their unlinked lines (a best-seller list)", () => {
    const books = ['The Salt Road by Ines Maro', 'Winter at Kettle Point by Dara Quill', 'A Field Guide to Rock Pools by Tomas Brell', "The Lantern Keeper's Daughter by Mae Orwin", 'Ninety Days of Bread by Ruth Calder']
    const card = (title: string, rank: number) =>
      `<div class="card"><div class="rank">#${rank}</div><div><a href="/dp/${rank}"><div>${title}</div></a><a href="/reviews/${rank}">4.6 out of 5 stars</a><a href="/dp/${rank}">$14.98</a></div><div class="formats">${rank + 1} formats available</div></div>`
    const list = listCandidate(body(`<div class="top"><a href="/">Home</a></div><div class="grid">${books.map((title, index) => card(title, index + 1)).join('')}</div>`))
    // what readability's cleaning of link-dense blocks leaves of each card: its rank and its formats line
    const chosen = body(`<ul>${books.map((_, index) => `<li><p>#${index + 1}</p><p>${index + 2} formats available</p></li>`).join('')}</ul>`)
    const wider = widenToList(chosen, list)
    assert.ok(wider)
    assert.match(toPlainText(wider), /#1[\s\S]*The Salt Road by Ines Maro[\s\S]*\$14\.98[\s\S]*2 formats available[\s\S]*#5[\s\S]*Ninety Days of Bread/)
    // one card kept (a teaser's lines among others) spans no list: it stays as chosen
    assert.equal(widenToList(body('<ul><li><p>#1</p><p>2 formats available</p></li></ul>'), list), undefined)
  })

  it('leaves a chosen article that is not in the list (comments, teasers below it), and one that holds most of the list', () => {
    const page = body(`<article>${ARTICLE}</article>${board}`)
    assert.equal(widenToList(body(ARTICLE), listCandidate(page)), undefined)
    const most = ['the question', 'a short answer', 'the long answer 1', 'the long answer 2', 'the long answer 3'].map(sentence).join('')
    assert.equal(widenToList(body(most), listCandidate(body(board))), undefined)
  })

  it('leaves a news item among items that are teasers: headlines, bylines and dates add no prose', () => {
    const teaser = (n: number) => `<div class="item"><h4><a href="/news/${n}">Headline number ${n} of another story elsewhere on the site</a></h4><ul><li>By a staff writer</li><li>20 November 2019</li></ul></div>`
    const news = `<div class="item"><h4>The story</h4><div>${ARTICLE}</div></div>`
    const list = listCandidate(body(`<div class="feed">${news}${[1, 2, 3, 4, 5, 6].map(teaser).join('')}</div>`))
    assert.ok(list)
    assert.equal(widenToList(body(ARTICLE), list), undefined)
  })

  it('finds no list in furniture, in chrome, or in a run of whole articles', () => {
    assert.equal(listCandidate(body(`<div class="comments">${board}</div>`)), undefined)
    assert.equal(listCandidate(body(`<aside>${board}</aside>`)), undefined)
    const story = (topic: string) => `<div class="story"><h2>${topic}</h2>${Array.from({ length: 16 }, (_, n) => sentence(`${topic} ${n}`)).join('')}</div>`
    assert.equal(listCandidate(body(`<div>${story('Budget')}${story('Weather')}${story('Football')}</div>`)), undefined)
    assert.ok(listCandidate(body(board)))
  })
})
