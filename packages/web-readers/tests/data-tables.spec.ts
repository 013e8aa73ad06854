import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

// A data table keeps its place whatever its class says: readability's first pass removed a table named like page chrome ("sticky-header", for a header row that stays in view), and a list page lost its list.
const intro = '<p>The prize has been awarded every year since the first ceremony, with a few years left out during the wars of the last century.</p>'.repeat(6)
const rows = Array.from({ length: 12 }, (_, n) => `<tr><td>${1901 + n}</td><td><a href="/wiki/P${n}">Physicist Number${n}</a></td><td><a href="/wiki/C${n}">Chemist Number${n}</a></td></tr>`).join('')

function text(table: string) {
  const html = `<html><head><title>List of laureates</title></head><body><div id="content"><h1>List of laureates</h1>${intro}<h2>Laureates</h2>${table}<h2>History</h2>${intro}</div></body></html>`
  return extractHtml({ html, url: 'https://wiki.example/List_of_laureates', format: 'text', extract: 'main' }).text
}

describe('data tables', () => {
  it('a sortable data table named sticky-header is kept, every row', () => {
    const out = text(`<table class="wikitable sortable sticky-header"><tr><th>Year</th><th>Physics</th><th>Chemistry</th></tr>${rows}</table>`)
    assert.match(out, /Physicist Number0/)
    assert.match(out, /Chemist Number11/)
  })

  it('a data table whose cells are links is content, not a menu: it stays beside longer prose', () => {
    const out = text(`<table class="wikitable"><tr><th>Year</th><th>Physics</th><th>Chemistry</th></tr>${rows}</table>`)
    assert.match(out, /1901\s+Physicist Number0\s+Chemist Number0/)
  })

  it('a table of links without a header cell named like a menu is not made a data table: readability still removes it', () => {
    const menu = Array.from({ length: 6 }, (_, n) => `<tr><td><a href="/s${n}">Section link ${n}</a></td></tr>`).join('')
    const out = text(`<table class="site-menu">${menu}</table>`)
    assert.doesNotMatch(out, /Section link/)
  })
})
