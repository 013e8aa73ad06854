import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { htmlParser } from '../src/html/parse-html.js'
import { isBuyControl, readShopSignals, sellsSomething } from '../src/html/shop-signals.js'
import type { DomElement } from '../src/html/dom.js'

const body = (html: string): DomElement => htmlParser.parse(`<!doctype html><html><body>${html}</body></html>`, 'https://store.example/').body!

const card = (name: string) => `<li><a href="/p/${name}">${name}</a><span>£12.00</span><button>Add to basket</button></li>`

describe("a shop's signals", () => {
  it('find basket buttons by their words, whatever else a button says, and an <input> by its value', () => {
    const root = body('<button><span>Loading...</span><span>Add to cart</span></button><input type="submit" value="Buy it now"><a href="/cart/add?id=1">Add to Bag – $29.95</a><div role="button">In den Warenkorb</div>')
    assert.deepEqual(readShopSignals(root).buys.map((element) => element.localName), ['button', 'input', 'a', 'div'])
  })

  it('take no link or paragraph that only mentions buying', () => {
    const root = body('<p>Add to cart, then pay: our checkout takes cards and bank transfers, and ships the next working day.</p><a href="/help">How do I add to cart on the app? A step-by-step guide for new customers</a><span>Add to cart</span>')
    assert.deepEqual(readShopSignals(root).buys, [])
    assert.equal(isBuyControl(root.querySelector('span')!), false)
  })

  it('find a price standing alone, or marked itemprop=price, not a price inside a sentence', () => {
    assert.equal(readShopSignals(body('<p>Delivery is free over £50 on every order.</p>')).price, undefined)
    for (const price of ['£74.00', '59,99 €', 'EUR 20.99', 'US $18.00']) assert.equal(readShopSignals(body(`<p>Now</p><span>${price}</span>`)).price?.textContent, price)
    assert.ok(readShopSignals(body('<span itemprop="price" content="74">seventy-four pounds</span>')).price)
  })

  it('say whether a page sells something: a basket button or a price; a page that declares a product and sells nothing is not a shop\'s', () => {
    const product = readShopSignals(body('<h1>Fernside kettle</h1><p class="price">£38.00</p><form><select><option>Red</option></select><button>Add to basket</button></form><p>It boils a litre in four minutes.</p>'))
    assert.equal(sellsSomething(product), true)
    const category = readShopSignals(body(`<h1>Kettles</h1><ul>${['fernside', 'harbour', 'moorland', 'tarn'].map(card).join('')}</ul>`))
    assert.equal(category.buys.length, 4)
    assert.equal(sellsSomething(readShopSignals(body('<h1>Pest control</h1><p>Our customers say we are quick.</p>'))), false)
  })
})
