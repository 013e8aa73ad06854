import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DOMParser } from 'linkedom'
import { ELEMENTS_FLOOR, MAX_ELEMENTS, buildTree, elementLimit } from '../src/html/build-tree.js'
import { htmlParser } from '../src/html/parse-html.js'
import { holdsOf } from '../src/html/built-document.js'
import { standardTree, treeLines } from './standard-tree.js'

// Markup that parsers disagree on: each is built by the standard's tree construction (the
// insertion modes, the adoption agency, foster parenting, implied end tags) into linkedom.
const CASES: Record<string, string> = {
  'content between </head> and <body>': '<html><head><title>T</title></head><meta name="a" content="b"><font>x</font><a href="/y">y</a><body class="c"><p>body</p></body></html>',
  'a loose table before <body>': '<html><head></head><table><tr><td>cell</td></tr></table><body><p>after</p></body></html>',
  '<title> without <head>': '<title>Only title</title><p>para</p>',
  'body content before </head>': '<html><head><meta charset="utf-8"><p>early</p><link rel="x"></head><body><p>later</p></body></html>',
  '</script without >': '<p>a</p><script>var x = "</p>"</script <p>article text</p><script>y()</script><p>end</p>',
  'text after </html>': '<html><body><p>in</p></body></html><p>after</p>tail',
  'misnested inline and block': '<p><b>bold <i>both</b> italic</i> plain</p><b><p>one</p><p>two</p></b><a href="1">x<div>y</div>z</a>',
  'unclosed table cells': '<table><tr><td>a<td>b<tr><td>c</table><p>after</p>',
  'stray end tags': '</div></span><p>one</p></li></td></tr></table><p>two</p></body><p>three',
  'foster parenting': '<table>lost<tr>text in row<td>cell</td></tr><b>bold</b></table>',
  'formatting reconstructed across blocks': '<p><b><i>x</p><p>y</i>z</b>w</p>',
  'more than three identical formatting elements': '<b><b><b><b>deep</b></b></b></b><p>x</p>',
  'nested forms and buttons': '<form><form><input name="a"><button>b<button>c</button></form><p>after</p>',
  'select with stray elements': '<select><option>1<option>2<p>not allowed</p></select><p>after</p>',
  'list items and definitions': '<ul><li>one<li>two<ul><li>nested</ul><li>three</ul><dl><dt>a<dd>b<dt>c</dl>',
  'headings nested': '<h1>one<h2>two</h1>three',
  'svg and foreignObject': '<p>a</p><svg><text>drawn</text><foreignObject><p>inside</p></foreignObject></svg><p>b</p>',
  'template': '<template><p>inert</p></template><p>shown</p>',
  'comments and CDATA': '<p>a<!-- c -->b</p><![CDATA[x]]><p>c</p>',
  'noscript': '<noscript><p>no js</p></noscript><p>with js</p>',
  'entities, CR LF, NUL': '<p title="a&amp;b">&lt;x&gt; &copy; &notanentity; caf&eacute;\r\nline\u0000</p>',
  'textarea, title and pre keep their text': '<textarea>\n<b>raw</b></textarea><pre>\n\nlead</pre><title>a <b> c</title>',
  'duplicate attributes and attributes on html and body': '<html lang="en"><body id="b"><div a="1" a="2" b="3">x</div><html data-x="y"><body data-z="w">',
  'white space around blocks and inline': '<div>\n <p> a <b>b</b> <i>c</i> </p>\n <span> d </span>\n</div>\n',
  'frameset': '<frameset><frame src="a"></frameset>',
  'JSON-LD kept, other scripts out': '<head><script type="application/ld+json">{"a":"</p>"}</script><script>x</script></head><p>y</p>',
}

describe('the tree extraction reads is the standard\'s', () => {
  for (const [name, html] of Object.entries(CASES)) {
    it(name, () => {
      assert.deepEqual(treeLines(buildTree(html).document), standardTree(html))
    })
  }
})

describe('linkedom nodes built directly', () => {
  it('reads attributes back, classes included, with many attributes on one element', () => {
    const attributes = Array.from({ length: 500 }, (_, index) => ` data-a${index}="${index}"`).join('')
    const { document } = buildTree(`<div id="x" class="one  two"${attributes}>t</div>`)
    const div = document.querySelector('#x')!
    assert.equal(div.getAttribute('data-a499'), '499')
    assert.equal((div as typeof div & { className: string }).className, 'one two')
    assert.equal(document.querySelectorAll('.two').length, 1)
    div.setAttribute('data-a0', 'changed')
    div.removeAttribute('data-a1')
    assert.equal(div.outerHTML.slice(0, 58), `<div id="x" class="one  two" data-a0="changed" data-a2="2"`)
  })
})

describe('styles of a built page', () => {
  it('reads an element\'s own style, and no style as empty, without a declaration object per element', () => {
    const { document } = buildTree('<p style="display: none; color: red">hidden</p><p>shown</p>')
    const [hidden, shown] = Array.from(document.querySelectorAll('p')) as unknown as { style: Record<string, unknown> }[]
    assert.equal(hidden!.style.display, 'none')
    assert.equal(hidden!.style.color, 'red')
    assert.equal(shown!.style.display, '')
    assert.equal(shown!.style.visibility, '')
    assert.equal(shown!.style.length, 0)
    // one shared empty answer: linkedom makes a new declaration for each element
    const other = document.createElement('div') as unknown as { style: unknown }
    assert.equal(other.style, shown!.style)
    assert.throws(() => {
      shown!.style.display = 'block'
    }, /read-only/)
  })

  it('leaves linkedom\'s styles alone on documents it did not build', async () => {
    const { parseHTML } = await import('linkedom')
    const { document } = parseHTML('<p>x</p>')
    const p = document.querySelector('p') as unknown as { style: Record<string, string>; getAttribute(name: string): string | null }
    p.style.display = 'block'
    assert.equal(p.getAttribute('style'), 'display:block')
  })
})

describe('queries of a built page', () => {
  const html = '<html><head><title>t</title><script type="application/ld+json">{}</script></head><body><div><p>a</p><noscript><img src="x"></noscript><p>b</p></div><template><p>inside</p></template><FONT>c</FONT></body></html>'

  it('answers tag-name selectors, in any case, in document order', () => {
    const { document } = buildTree(html)
    const names = (list: ArrayLike<{ localName: string }>) => Array.from(list, (element) => element.localName).join(' ')
    assert.equal(names(document.querySelectorAll('script, noscript')), 'script noscript')
    assert.equal(names(document.querySelectorAll('P,NOSCRIPT')), 'p noscript p')
    assert.equal(names(document.body!.querySelectorAll('font')), 'font')
    // other selectors are linkedom's
    assert.equal(names(document.querySelectorAll('div > p:first-child')), 'p')
    const body = document.body as unknown as { getElementsByTagName(name: string): ArrayLike<{ localName: string }> }
    assert.equal(names(body.getElementsByTagName('P')), 'p p')
    // every element: readability counts them for its maxElemsToParse (linkedom's answers none)
    assert.equal(names(body.getElementsByTagName('*')), 'div p noscript p template font')
  })

  it('reads an element\'s text in order, and still sets it', () => {
    const { document } = buildTree('<div id="d">one <b>two</b><p>three<i> four</i></p></div>')
    const div = document.querySelector('#d')!
    assert.equal(div.textContent, 'one twothree four')
    div.textContent = 'replaced'
    assert.equal(div.innerHTML, 'replaced')
  })

  it('names the elements createElement makes in lower case, as the DOM standard says, so they are what they are', () => {
    const { document } = buildTree(html)
    const made = document.createElement('P') as unknown as { localName: string; tagName: string }
    assert.equal(made.localName, 'p')
    assert.equal(made.tagName, 'P')
    assert.equal((document.body as unknown as { nodeName: string }).nodeName, 'BODY')
    const link = document.createElement('A') as unknown as { constructor: { name: string } }
    assert.equal(link.constructor.name, 'HTMLAnchorElement')
  })
})

describe('React streaming segments', () => {
  it('$RS puts a segment in place of its placeholder', () => {
    const html = '<div id="root"><p>shell</p><template id="P:1"></template><p>end</p></div><div hidden id="S:1"><p>late</p></div><script>$RS("S:1","P:1")</script>'
    assert.equal(htmlParser.parse(html, 'https://x.test/').querySelector('#root')!.innerHTML, '<p>shell</p><p>late</p><p>end</p>')
  })

  it('$RC replaces a boundary\'s fallback, nested boundaries included, and an unplaced segment is no longer hidden', () => {
    const html = '<main><!--$?--><template id="B:0"></template><p>wait</p><!--$--><p>inner</p><!--/$--><p>more wait</p><!--/$--><p>after</p></main>' +
      '<div hidden id="S:0"><p>story</p></div><div hidden id="S:9"><p>orphan</p></div><script>$RC("B:0","S:0")</script>'
    const document = htmlParser.parse(html, 'https://x.test/')
    assert.equal(document.querySelector('main')!.textContent, 'storyafter')
    assert.equal(document.querySelector('[id="S:9"]')!.hasAttribute('hidden'), false)
  })
})

describe("Marko's async fragments (eBay's listings)", () => {
  it('$af<name>(n) puts fragment n in place of its placeholder, in the order called; a fragment never called stays hidden', () => {
    const html =
      '<main><section><span id=afbrwwebph1><div class="loader"></div></span><span id=afbrwwebph2>…</span></section><footer>end</footer></main>' +
      '<div id=afbrwweb2 style=display:none><ul><li>Second item</li></ul></div><div id=afbrwweb1 style=display:none><h1>Collectibles</h1></div>' +
      '<div id=afbrwweb3 style=display:none><p>never placed</p></div>' +
      '<script>function $afbrwweb(d,a){var e=document,l=e.getElementById("afbrwweb"+d),g=e.getElementById("afbrwwebph"+d)};$afbrwweb(2);$afbrwweb(1,"2")</script>'
    const document = htmlParser.parse(html, 'https://x.test/')
    assert.equal(document.querySelector('main')!.innerHTML, '<section><h1>Collectibles</h1><ul><li>Second item</li></ul></section><footer>end</footer>')
    assert.equal(document.querySelector('#afbrwweb2'), null)
    assert.equal(document.querySelector('#afbrwweb3')!.getAttribute('style'), 'display:none')
  })
})

describe('the element limit follows the page size', () => {
  // 50 formatting elements of distinct classes, re-opened (the standard's reconstruction) in each of 400 paragraphs.
  const markup = (padding: number) => `<p>${Array.from({ length: 50 }, (_, index) => `<b class="c${index}">`).join('')}x${'<p>x'.repeat(400)}<!--${'.'.repeat(padding)}-->`
  const elementsOf = (html: string) => {
    const { document } = buildTree(html)
    return (document as unknown as { querySelectorAll(selector: string): ArrayLike<unknown> }).querySelectorAll('*').length
  }
  // a comment adds characters and no element: counted with room to spare
  const built = elementsOf(markup(100_000))
  // padding that makes the limit exactly the elements built: ELEMENTS_FLOOR + floor(chars / 2) = built
  const exact = 2 * (built - ELEMENTS_FLOOR) - markup(0).length

  it('builds a page of exactly its limit, and refuses one more element than its characters allow', () => {
    assert.ok(built > ELEMENTS_FLOOR + markup(0).length / 2, `the markup builds ${built} elements from ${markup(0).length} characters`)
    assert.equal(elementLimit(markup(exact).length), built)
    assert.equal(elementsOf(markup(exact)), built)
    assert.equal(elementLimit(markup(exact - 2).length), built - 1)
    assert.throws(
      () => buildTree(markup(exact - 2)),
      (error: { code?: string; message: string; details: { limit: number } }) =>
        error.code === 'WEB_FETCH_TOO_LARGE' && error.details.limit === built - 1 && new RegExp(`more than ${(built - 1).toLocaleString('en')} elements from`).test(error.message),
    )
  })

  it('caps every page at MAX_ELEMENTS', () => {
    assert.equal(elementLimit(100_000_000), MAX_ELEMENTS)
  })
})

describe('what a built page holds (holdsOf)', () => {
  const holds = (html: string) => holdsOf(htmlParser.parse(html, 'https://site.example/'))

  it('records the elements the clean-ups look for, as the tree is built', () => {
    assert.deepEqual(holds('<p>Just text.</p>'), { table: false, base: false, choice: false, itemtype: false, jsonLd: false })
    assert.deepEqual(
      holds(
        '<head><base href="/docs/"><script type="application/ld+json">{"@type":"Thing"}</script></head>' +
          '<body><TABLE><tr><td>1</td></tr></TABLE><input type=" Checkbox "><div itemscope itemtype="https://schema.org/Thing"></div></body>',
      ),
      { table: true, base: true, choice: true, itemtype: true, jsonLd: true },
    )
    // a text box is no choice; microdata on a second <body> tag counts
    assert.equal(holds('<input type="text"><input>')!.choice, false)
    assert.equal(holds('<body><p>x</p><body itemscope itemtype="https://schema.org/WebPage">')!.itemtype, true)
  })

  it('counts elements only: the words in a script, a comment or an attribute are not elements', () => {
    const source = '<p title="<table>">x</p><!-- <table><base href=/> --><script>document.write("<table><input type=radio>")</script><p>itemtype ld+json</p>'
    assert.deepEqual(holds(source), { table: false, base: false, choice: false, itemtype: false, jsonLd: false })
  })

  it('is undefined for a document linkedom parsed itself, whose source is searched instead', () => {
    assert.equal(holdsOf(new DOMParser().parseFromString('<table></table>', 'text/html')), undefined)
  })
})
