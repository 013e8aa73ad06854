import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { DomElement } from '../src/html/dom.js'
import { extractHtml } from '../src/html/extract-html.js'
import { htmlParser } from '../src/html/parse-html.js'
import { findSections, isSectionedPage, maySection, sectionedContent } from '../src/html/sectioned-page.js'
import { toPlainText } from '../src/html/to-text.js'
import { assertInOrder, assertNone } from './assert-text.js'

const body = (html: string): DomElement => htmlParser.parse(`<!doctype html><html><head><title>Page</title></head><body>${html}</body></html>`, 'https://site.example/').body!
const copyOf = (element: DomElement) => (element as unknown as { cloneNode(deep: boolean): DomElement }).cloneNode(true)
const squeezed = (element: DomElement) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()


const wrapped = (name: string, inner: string) => `<div class="block ${name}"><div class="container"><div class="inner">${inner}</div></div></div>`
const HERO = wrapped('hero', '<span>Gardens</span><h1>Gardens designed to be lived in</h1><p>We plan, plant and look after gardens of every size across the valley, from a courtyard to an acre.</p><a href="/quote">Ask for a quote</a>')
const SERVICES = wrapped('services', '<h2>What we do</h2><div class="card"><h3>Design</h3><p>A survey of the site, a plan drawn to scale, and a planting list chosen for your soil and light.</p></div><div class="card"><h3>Planting</h3><p>Our own crew prepares the beds, plants everything in the right season and waters it in.</p></div>')
const STORIES = wrapped('stories', '<h2>What our clients say</h2><blockquote><p>The garden was a bare slope of clay when they started, and by the second summer it was full of colour, with paths that drain, a bench in the shade, and a vegetable bed the children actually use.</p></blockquote><blockquote><p>They listened to what we wanted, drew it twice until it was right, and came back every month of the first year to prune, feed and replace the two shrubs the frost took.</p></blockquote>')
const QUESTIONS = wrapped('faq', '<h2>Questions</h2><h3>When is the best time to plant?</h3><p>Autumn for trees and shrubs, spring for most perennials; we plan the work around the seasons.</p><h3>Do you look after gardens you did not design?</h3><p>Yes, we take on the care of any garden, after a first visit to see what it needs.</p>')
const CHROME = '<header><a href="/">Valley Gardens</a><nav><a href="/about">About us</a><a href="/work">Our work</a><a href="/contact">Contact</a></nav></header>'
const NEWSLETTER = '<div class="newsletter-signup"><h2>Seasonal tips by email</h2><p>Once a season, what to plant and prune now, from our head gardener to your inbox.</p><input type="email"><button>Subscribe</button></div>'
const FOOTER = '<footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>'
const SERVICE_PAGE = `${CHROME}<main>${HERO}${SERVICES}${STORIES}${QUESTIONS}${NEWSLETTER}</main>${FOOTER}`

/** The client stories, as readability keeps them: one section of the page. */
const storiesOf = (page: DomElement) => copyOf(page.querySelector('.stories .inner')!)

describe('a page made of sections', () => {
  it('keeps the whole main area when the content chosen is one of its sections, its chrome and furniture left out', () => {
    const page = body(SERVICE_PAGE)
    const area = sectionedContent(copyOf(page), storiesOf(page))
    assert.ok(area, 'the area is kept')
    const text = squeezed(area)
    assertInOrder(text, [
      'Gardens designed to be lived in', 'from a courtyard to an acre', 'Ask for a quote',
      'What we do', 'Design', 'a planting list chosen for your soil', 'Planting', 'waters it in',
      'What our clients say', 'a bare slope of clay', 'came back every month',
      'Questions', 'When is the best time to plant?', 'Autumn for trees', 'Do you look after gardens', 'after a first visit',
    ])
    assertNone(text, ['About us', 'Contact', 'Seasonal tips by email', 'Subscribe', 'Privacy'])
  })

  it('finds the area by the chosen text, and counts as sections only the children that open with a heading (after at most one short label)', () => {
    const page = body(SERVICE_PAGE)
    const sections = findSections(copyOf(page), storiesOf(page))!
    assert.equal(sections.area.localName, 'main')
    // the hero opens with a label, then its heading; the newsletter box is furniture, not counted
    assert.equal(sections.count, 4)
    assert.equal(sections.furniture.length, 1)
    assert.equal(sections.inArticle, false)
    const late = body(`<main>${HERO}${SERVICES}<div class="intro"><p>A paragraph of prose that comes before the heading of this block, long enough to be read.</p><h2>Late heading</h2></div>${STORIES}</main>`)
    assert.equal(findSections(copyOf(late), storiesOf(late))!.count, 3)
  })

  it('is read from the page as it was: the copy, not the document, gives up the area', () => {
    const page = body(SERVICE_PAGE)
    const before = page.innerHTML
    const intact = copyOf(page)
    assert.ok(sectionedContent(intact, storiesOf(page)))
    assert.equal(page.innerHTML, before)
    assert.equal(intact.querySelector('main'), null)
  })

  it('is not taken when the content chosen is most of the area, or holds a paragraph of article length', () => {
    const page = body(SERVICE_PAGE)
    const most = copyOf(page.querySelector('main')!)
    most.querySelector('.hero')!.remove()
    assert.equal(sectionedContent(copyOf(page), most), undefined)
    const long = `<p>${'A sentence of an article that goes on for a while, as articles do. '.repeat(16)}</p>`
    const essay = body(`<main>${HERO}${SERVICES}${wrapped('essay', `<h2>Our story</h2>${long}`)}${QUESTIONS}</main>`)
    const sections = findSections(copyOf(essay), copyOf(essay.querySelector('.essay .inner')!))!
    assert.equal(isSectionedPage(sections, copyOf(essay.querySelector('.essay .inner')!)), false)
  })

  it('is not taken when the sections are mostly links: a site map, a footer-like menu of headed lists', () => {
    const links = (names: string[]) => `<ul>${names.map((name) => `<li><a href="/${name.toLowerCase().replace(/\W+/g, '-')}">${name}</a></li>`).join('')}</ul>`
    const intro = '<div class="intro"><h1>Site map</h1><p>Every page of the site, by section, so that you can find what the menus hide from you.</p></div>'
    const map = `<main>${intro}<div><h2>Services</h2>${links(['Garden design', 'Planting', 'Lawn care', 'Hedge cutting', 'Tree surgery'])}</div><div><h2>Company</h2>${links(['About us', 'Our team', 'Careers', 'Press', 'Contact'])}</div><div><h2>Help</h2>${links(['Questions', 'Prices', 'Areas we cover', 'Guarantee', 'Privacy'])}</div></main>`
    const page = body(map)
    assert.equal(sectionedContent(copyOf(page), copyOf(page.querySelector('.intro')!)), undefined)
    // the same lists with a sentence each are still a menu: the area's text is mostly in links
    const described = body(map.replace(/<\/h2>/g, '</h2><p>Pages.</p>'))
    const sections = findSections(copyOf(described), copyOf(described.querySelector('.intro')!))
    assert.ok(!sections || !isSectionedPage(sections, copyOf(described.querySelector('.intro')!)))
    for (const format of ['text', 'markdown'] as const) {
      const { extractor } = extractHtml({ html: `<html><head><title>Site map</title></head><body>${CHROME}${map}${FOOTER}</body></html>`, url: 'https://site.example/site-map', format, extract: 'main' })
      assert.doesNotMatch(extractor, /^page-sections/)
    }
  })
})

const paragraph = (topic: string) => `<p>The council met on Tuesday evening to discuss ${topic}, and after a long debate, in which every member spoke at least once, the motion was carried by a narrow margin of two votes.</p>`
const STORY = ['the bridge', 'the budget', 'the library hours', 'the bus routes', 'the market square', 'the new school', 'the flood defences', 'the parking charges', 'the allotments', 'the street lights'].map(paragraph).join('')
const RELATED = '<div class="more-stories"><h2>More from the valley</h2><div><h3><a href="/a">Ferry timetable changes in spring</a></h3><p>New sailings from April.</p></div><div><h3><a href="/b">School wins county prize</a></h3><p>The choir took first place.</p></div></div>'
const COMMENTS = '<div class="comments"><h2>3 comments</h2><div><h4>river_walker</h4><p>About time the bridge was fixed; I have been walking the long way round for two years now.</p></div><div><h4>mo</h4><p>The budget debate was the real story here, and it gets one line.</p></div></div>'

describe('maySection: the copy is made only for a page that may be one of sections', () => {
  const body = (html: string) => htmlParser.parse(`<html><body>${html}</body></html>`, 'https://site.example/').body!
  const section = (title: string) => `<div class="block"><h2>${title}</h2><p>What the block says about ${title}.</p></div>`

  it('needs an element with MIN_SECTIONS children that hold a heading below them', () => {
    assert.equal(maySection(body(`<main>${section('Speed')}${section('Safety')}${section('Support')}</main>`)), true)
    assert.equal(maySection(body(`<main>${section('Speed')}${section('Safety')}</main><div>${section('Support')}</div>`)), false)
    // a heading that is itself the child holds none below it: an article's <h2>s between its paragraphs
    assert.equal(maySection(body(`<div class="story"><h2>One</h2><p>Text.</p><h2>Two</h2><p>Text.</p><h2>Three</h2><p>Text.</p></div>`)), false)
    // a deep heading counts at every level it climbs through
    assert.equal(maySection(body(`<div>${Array.from({ length: 3 }, (_, n) => `<section><div><div><h3>Part ${n}</h3></div></div></section>`).join('')}</div>`)), true)
    // navigation and forms are never sections
    assert.equal(maySection(body(`<div>${section('Speed')}${section('Safety')}<nav><div><h2>Menu</h2></div></nav><form><div><h2>Sign up</h2></div></form></div>`)), false)
  })
})

describe('an article with related stories and comments keeps its path', () => {
  for (const format of ['text', 'markdown'] as const) {
    it(`in an <article>: no copy is made, readability's choice stands (${format})`, () => {
      const html = `<html><head><title>Council backs bridge repairs</title></head><body>${CHROME}<main><article><h1>Council backs bridge repairs</h1>${STORY}</article>${RELATED}${COMMENTS}</main>${FOOTER}</body></html>`
      assert.equal(maySection(htmlParser.parse(html, 'https://news.example/').body!), false)
      const { text, extractor } = extractHtml({ html, url: 'https://news.example/council', format, extract: 'main' })
      assert.doesNotMatch(extractor, /^page-sections/)
      assertInOrder(text, ['discuss the bridge', 'discuss the street lights'])
      assertNone(text, ['More from the valley', 'Ferry timetable', 'river_walker', 'About us'])
    })

    it(`in plain blocks: the story is no section among sections, and stays alone (${format})`, () => {
      const html = `<html><head><title>Council backs bridge repairs</title></head><body>${CHROME}<div class="page"><div class="story"><h1>Council backs bridge repairs</h1>${STORY}</div>${RELATED}${COMMENTS}</div>${FOOTER}</body></html>`
      const page = htmlParser.parse(html, 'https://news.example/').body!
      assert.equal(sectionedContent(copyOf(page), copyOf(page.querySelector('.story')!)), undefined)
      const { text, extractor } = extractHtml({ html, url: 'https://news.example/council', format, extract: 'main' })
      assert.doesNotMatch(extractor, /^page-sections/)
      assertInOrder(text, ['discuss the bridge', 'discuss the street lights'])
      assertNone(text, ['More from the valley', 'Ferry timetable', 'river_walker', 'About us'])
    })
  }

  it('in plain blocks named and linked like content: three sections, but the story holds most of the text', () => {
    const related = RELATED.replace('more-stories', 'valley').replace(/<p>[^<]*<\/p>/g, '<p>A longer summary of the story, written out in full for the reader who wants it.</p>')
    const html = `<div class="page"><div class="story"><h1>Council backs bridge repairs</h1>${STORY}</div>${related}${COMMENTS.replace('comments', 'discussion')}</div>`
    const page = body(html)
    const sections = findSections(copyOf(page), copyOf(page.querySelector('.story')!))!
    assert.equal(sections.count, 3)
    assert.ok(sections.largestShare >= 0.7, String(sections.largestShare))
    assert.equal(isSectionedPage(sections, copyOf(page.querySelector('.story')!)), false)
  })
})
