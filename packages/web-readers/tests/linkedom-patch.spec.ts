import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseHTML } from 'linkedom'

// linkedom is patched (patches/linkedom@0.18.15.patch) to create a node's
// listener map only when a listener is added: parsing a page no longer pays a
// WeakMap entry and a Map per node. Events must still work as before.
describe('the linkedom listener patch', () => {
  it('still delivers, removes and bubbles events', () => {
    const { document } = parseHTML('<html><body><div id="outer"><p id="inner">x</p></div></body></html>')
    const inner = document.getElementById('inner')!
    const outer = document.getElementById('outer')!
    const seen: string[] = []
    const onInner = () => seen.push('inner')
    inner.addEventListener('ping', onInner)
    outer.addEventListener('ping', () => seen.push('outer'))
    inner.dispatchEvent(new document.defaultView.Event('ping', { bubbles: true }))
    inner.removeEventListener('ping', onInner)
    inner.dispatchEvent(new document.defaultView.Event('ping', { bubbles: true }))
    // Removing from, and dispatching on, a node that never had a listener is fine.
    document.body.removeEventListener('ping', onInner)
    document.body.dispatchEvent(new document.defaultView.Event('ping'))
    assert.deepEqual(seen, ['inner', 'outer', 'outer'])
  })
})
