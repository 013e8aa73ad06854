// The pure parts of find and query over a snapshot's text: the folding that
// keeps offsets exact, the heading paths and outline, the cutting and ranking.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FIND_MATCHES_MAX, findInPage } from '../src/view/find-in-page.js'
import { HEADING_TITLE_MAX, HeadingPaths, OUTLINE_MAX, outlineOf, readHeadings } from '../src/view/page-outline.js'
import { viewPage } from '../src/view/page-view.js'
import { PASSAGES_MAX, rankPassages, rankTerms } from '../src/view/rank-passages.js'

const none = new HeadingPaths([])
const find = (text: string, phrase: string, from = 0, maxChars = 20_000, markdown = false) => findInPage(text, phrase, { from, maxChars, paths: none, markdown })

describe('find in a text', () => {
  it('keeps offsets exact across whitespace runs, a longer lowercase and characters outside the BMP', () => {
    const text = '𝒜𝒜 one \n\n\t two  İstanbul\tthree'
    const [match] = find(text, ' ONE   two ').matches
    assert.equal(text.slice(match.offset, match.offset + match.length), 'one \n\n\t two')
    assert.equal(match.text, 'one \n\n\t two')
    const [city] = find(text, 'istanbul three').matches
    assert.equal(city.text, 'İstanbul\tthree')
    assert.equal(city.offset, text.indexOf('İstanbul'))
  })

  it('searches from an offset, also one inside a whitespace run', () => {
    const text = 'word  \n\n  word word'
    assert.deepEqual(find(text, 'word').matches.map((match) => match.offset), [0, 10, 15])
    assert.deepEqual(find(text, 'word', 7).matches.map((match) => match.offset), [10, 15])
    assert.deepEqual(find(text, 'word', 11).matches.map((match) => match.offset), [15])
  })

  it('in markdown, leaves inline markup out of the page and the phrase alike, the match read back with its markup', () => {
    const text = 'The *Star Trek* film and the **[fourth film](https://x.example/a_(b)) of it**, with `max_chars` and _plain_ words.'
    assert.deepEqual(find(text, 'star trek film', 0, 20_000, true).matches.map((match) => match.text), ['Star Trek* film'])
    assert.deepEqual(find(text, 'the fourth film of it', 0, 20_000, true).matches.map((match) => match.text), ['the **[fourth film](https://x.example/a_(b)) of it'])
    assert.deepEqual(find(text, '`max_chars` and plain', 0, 20_000, true).matches.map((match) => match.text), ['max_chars` and _plain'])
    assert.equal(find(text, 'star trek film').total, 0, 'plain text is searched literally')
    assert.throws(() => find(text, '**', 0, 20_000, true), /only markdown markup/)
  })

  it('keeps accents and tells them apart', () => {
    assert.deepEqual(find('resume résumé RÉSUMÉ', 'résumé').matches.map((match) => match.text), ['résumé', 'RÉSUMÉ'])
  })

  it('keeps its context inside the match block and its matches within maxChars, the first always shown', () => {
    const text = `Before block.\n\nStart of the block with the key term inside it and more words after it.\n\nAfter block.`
    const [match] = find(text, 'key term').matches
    assert.equal(match.before, 'Start of the block with the ')
    assert.equal(match.after, ' inside it and more words after it.')
    const many = Array.from({ length: 200 }, (_, index) => `line ${index} has the key term in it`).join('\n')
    const capped = find(many, 'key term', 0, 1_000)
    assert.equal(capped.total, 200)
    const used = capped.matches.reduce((sum, entry) => sum + entry.text.length + entry.before.length + entry.after.length, 0)
    assert.ok(used <= 1_000 && capped.matches.length > 1, `${used} characters in ${capped.matches.length} matches`)
    assert.equal(capped.nextOffset, many.indexOf('key term', capped.matches.at(-1)!.offset + 1))
    assert.equal(find(many, 'key term', 0, 1).matches.length, 1)
    assert.equal(find(many, 'key term').matches.length, FIND_MATCHES_MAX)
  })
})

describe('headings and the outline', () => {
  it('reads markdown headings outside code fences, links and emphasis dropped from their titles, and the path of any offset', () => {
    const text = '# Top\n\ntext\n\n```\n# not a heading\n```\n\n## [Linked](https://x.example/) **part** ##\n\nbody\n\n### Deep\n\ndeep body\n\n## Next\n\nend'
    const headings = readHeadings(text, 'markdown')
    assert.deepEqual(headings.map((heading) => [heading.level, heading.title]), [[1, 'Top'], [2, 'Linked part'], [3, 'Deep'], [2, 'Next']])
    assert.equal(text.slice(headings[2].offset, headings[2].offset + 8), '### Deep')
    const paths = new HeadingPaths(headings)
    assert.deepEqual(paths.at(text.indexOf('deep body')), ['Top', 'Linked part', 'Deep'])
    assert.deepEqual(paths.at(text.indexOf('end')), ['Top', 'Next'])
    assert.deepEqual(paths.at(0), ['Top'])
    assert.deepEqual(new HeadingPaths(readHeadings('intro\n\n# A', 'markdown')).at(0), [])
  })

  it('cuts a long title visibly and keeps the upper levels of a long outline', () => {
    const [long] = readHeadings(`## ${'word '.repeat(100)}`, 'markdown')
    assert.equal(long.title.length, HEADING_TITLE_MAX)
    assert.ok(long.title.endsWith('…'))
    const text = Array.from({ length: 30 }, (_, index) => `## Chapter ${index}\n\n### A\n\n### B\n`).join('\n')
    const { outline, total } = outlineOf(readHeadings(text, 'markdown'))
    assert.equal(total, 90)
    assert.equal(outline.length, 30)
    assert.ok(outline.every((heading) => heading.level === 2))
    const flat = outlineOf(readHeadings(Array.from({ length: 80 }, (_, index) => `# H${index}`).join('\n\n'), 'markdown'))
    assert.equal(flat.outline.length, OUTLINE_MAX)
  })

  it('reads html headings, their tags and entities undone', () => {
    const html = '<h1 class="t">Fish &amp; <em>chips</em></h1><p>x</p><H2>Caf&#233;</H2><h3>unclosed'
    const headings = readHeadings(html, 'html')
    assert.deepEqual(headings.map((heading) => [heading.level, heading.title, heading.offset]), [[1, 'Fish & chips', 0], [2, 'Café', html.indexOf('<H2>')]])
  })
})

describe('ranking passages', () => {
  it('folds words for ranking: lowercase, no accents, no plural s, no link targets', () => {
    assert.deepEqual(rankTerms('Cafés and [Timeouts](https://x.example/settings) class'), ['cafe', 'and', 'timeout', 'class'])
  })

  it('ranks long blocks in parts, never more than PASSAGES_MAX passages, each exactly the text at its offset', () => {
    const sentence = 'Filler words about nothing in particular fill this sentence. '
    const text = `${sentence.repeat(40)}The answer about tokens is here. ${sentence.repeat(40)}\n\n${Array.from({ length: 10 }, () => `A block about tokens. ${sentence.repeat(5)}`).join('\n\n')}`
    const ranked = rankPassages(text, 'answer tokens', { maxChars: 20_000, paths: none })
    assert.ok(ranked.blocks > 3)
    assert.equal(ranked.passages.length, PASSAGES_MAX)
    assert.match(ranked.passages[0].text, /The answer about tokens is here/)
    assert.ok(ranked.passages[0].text.length <= 1_200)
    for (const passage of ranked.passages) assert.equal(text.slice(passage.offset, passage.offset + passage.text.length), passage.text)
    assert.deepEqual(rankPassages(text, 'unrelated', { maxChars: 100, paths: none }).passages, [])
  })

  it('counts the heading path of a block with its words', () => {
    const text = '## Pricing\n\nIt costs ten euros a month.\n\n## Support\n\nWrite to us any day of the month.'
    const ranked = rankPassages(text, 'pricing month', { maxChars: 1_000, paths: new HeadingPaths(readHeadings(text, 'markdown')) })
    assert.deepEqual(ranked.passages.map((passage) => passage.headings), [['Pricing'], ['Support']])
  })
})

describe('the view of a snapshot', () => {
  it('is the part at the offset without find or query, and says which part', () => {
    const view = viewPage('abcdef', 'text', { offset: 2, maxChars: 2 })
    assert.deepEqual(view, { text: 'cd', offset: 2, totalChars: 6, truncated: true, nextOffset: 4, warnings: [], partNote: 'Characters 2 to 4 of 6 are shown (maxChars 2); call again with offset 4 for the next part.' })
  })
})
