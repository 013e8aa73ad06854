import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXED_PARAMS, FIXTURES, providerFor, rejection } from './helpers.js'

describe('brave: the answer mapped to sources', () => {
  const server = useFixtureServer(FIXTURES)

  it('web results, then news, then discussions, unique by URL, each with its kind, snippet, date and extra snippets', async () => {
    server.reply('brave-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'rust async runtime' }, call())
    assert.equal(result.providerId, 'brave')
    assert.equal(result.query, 'rust async runtime')
    assert.deepEqual(result.queries, ['rust async runtime'])
    assert.deepEqual(result.sources, [
      {
        url: 'https://tokio.rs/',
        title: 'Tokio - An asynchronous Rust runtime',
        snippet: 'Tokio is an asynchronous runtime for the Rust programming language.',
        publishedDate: '2025-03-05T10:12:00',
        extraSnippets: ['Tokio provides a multi-threaded runtime for executing asynchronous code.', 'It is built on the Rust async/await syntax.'],
        kind: 'web',
      },
      {
        url: 'https://docs.rs/tokio/latest/tokio/',
        title: 'tokio - Rust',
        snippet: 'A runtime for writing reliable network applications without compromising speed.',
        publishedDate: '2 days ago',
        kind: 'web',
      },
      {
        url: 'https://news.example.com/tokio-1-44',
        title: 'Tokio 1.44 released',
        snippet: 'The Tokio team released version 1.44.',
        publishedDate: '2025-03-03T08:00:00',
        kind: 'news',
      },
      {
        url: 'https://www.reddit.com/r/rust/comments/abc123/tokio_vs_asyncstd/',
        title: 'Tokio vs async-std in 2025?',
        snippet: 'Which async runtime should a new project pick?',
        publishedDate: 'January 12, 2025',
        kind: 'discussion',
      },
    ])
    assert.deepEqual(result.warnings, [])
    assert.deepEqual(result.filters, [])
    assert.deepEqual(result.usage, { searchRequests: 1 })
    assert.equal(result.answer, undefined, 'Brave writes no prose: there is no answer')
    await provider.close()
  })

  it('every section is optional: news alone gives sources; a result without a URL is none; sections not asked for are ignored', async () => {
    server.reply('brave-news-only')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'storm warning' }, call())
    assert.deepEqual(result.sources, [
      {
        url: 'https://news.example.com/storm',
        title: 'Storm warning for the coast',
        snippet: 'Authorities issued a storm warning.',
        publishedDate: '1 hour ago',
        extraSnippets: ['Winds up to 120 km/h are expected.'],
        kind: 'news',
      },
      { url: 'https://news.example.com/no-snippet', title: 'No title snippet', kind: 'news' },
    ])
    assert.deepEqual(result.warnings, [])
    await provider.close()
  })

  it('zero results: an empty source list with a warning, not an error', async () => {
    server.reply('brave-zero-results')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'qwxzv plokm' }, call())
    assert.deepEqual(result.sources, [])
    assert.deepEqual(result.warnings, ['The web search returned no results.'])
    await provider.close()
  })

  it('a spell-corrected query is the query run, and a warning says so', async () => {
    server.reply('brave-spell-corrected')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'tokoi runtime' }, call())
    assert.deepEqual(result.queries, ['tokio runtime'])
    assert.deepEqual(result.warnings, ['Brave Search corrected the spelling and ran "tokio runtime" instead of "tokoi runtime".'])
    await provider.close()
  })

  it('a 200 whose type is not "search" is WEB_PROVIDER_BAD_RESPONSE, never an empty success', async () => {
    server.reply({ status: 200, body: { type: 'videos', results: [] } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.match(error.message, /type is "videos", not "search"/)
    await provider.close()
  })
})

describe('brave: paging through offsets', () => {
  const server = useFixtureServer(FIXTURES)
  const offsetOf = (path: string) => new URL(path, 'http://x').searchParams.get('offset')

  it('maxResults 45: pages of 20 at offsets 0, 1, 2; overlapping results counted once; cut at 45', async () => {
    server.reply('brave-page-1', 'brave-page-2', 'brave-page-3')
    const { provider } = providerFor(server, { maxResults: 45 })
    const result = await provider.search({ query: 'deep query' }, call())
    assert.deepEqual(
      server.requests.map((request) => request.path),
      [0, 1, 2].map((offset) => `/res/v1/web/search?q=deep+query&count=20&offset=${offset}&${FIXED_PARAMS}`),
    )
    assert.equal(result.sources.length, 45)
    assert.equal(new Set(result.sources.map((source) => source.url)).size, 45)
    assert.equal(result.sources[20]!.url, 'https://two.example.org/result-21', 'the repeated result-3 of page 2 is skipped')
    assert.equal(result.sources[44]!.url, 'https://three.example.org/result-45')
    assert.deepEqual(result.usage, { searchRequests: 3 })
    await provider.close()
  })

  it('stops when more_results_available is false, whatever maxResults asks', async () => {
    server.reply('brave-last-page', 'brave-page-2')
    const { provider } = providerFor(server, { maxResults: 200 })
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(server.requests.length, 1)
    assert.equal(result.sources.length, 3)
    await provider.close()
  })

  it('stops when a page brings no web results', async () => {
    server.reply('brave-page-1', { status: 200, body: { type: 'search', query: { original: 'q', more_results_available: true }, web: { type: 'search', results: [] } } }, 'brave-page-3')
    const { provider } = providerFor(server, { maxResults: 60 })
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(server.requests.length, 2)
    assert.equal(result.sources.length, 20)
    await provider.close()
  })

  it('is bounded: maxResults 200 asks for offsets 0..9 at most, never 10', async () => {
    server.reply(...Array.from({ length: 11 }, () => 'brave-page-2'))
    const { provider } = providerFor(server, { maxResults: 200 })
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(server.requests.map((request) => offsetOf(request.path)), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
    assert.equal(result.sources.length, 20, 'the same page ten times is twenty sources')
    await provider.close()
  })

  it('maxResults up to 20 is one request with count = maxResults', async () => {
    server.reply('brave-page-1')
    const { provider } = providerFor(server, { maxResults: 5 })
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(server.requests.length, 1)
    assert.match(server.requests[0]!.path, /&count=5&offset=0&/)
    assert.equal(result.sources.length, 5, 'Brave delivered 20; the row asked for 5')
    await provider.close()
  })

  it('a later page that fails keeps the earlier pages, with a warning naming the failure', async () => {
    server.reply('brave-page-1', 'brave-500', 'brave-500', 'brave-500')
    const { provider, waits } = providerFor(server, { maxResults: 40 })
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(result.sources.length, 20)
    assert.equal(server.requests.length, 4, 'page 2 was retried twice like any page')
    assert.deepEqual(waits, [500, 1000])
    assert.equal(result.warnings.length, 1)
    assert.match(result.warnings[0]!, /^Brave Search failed on page 2 \(offset 1\) with WEB_PROVIDER_ERROR: Brave Search failed on its side \(HTTP 500\): An unexpected error occurred\. The sources are those of the first 1 page\.$/)
    assert.deepEqual(result.usage, { searchRequests: 1 })
    await provider.close()
  })

  it('cancelled while a later page is read: WEB_ABORTED, not partial results', async () => {
    const controller = new AbortController()
    server.reply('brave-page-1')
    server.replyWith(() => controller.abort())
    const { provider } = providerFor(server, { maxResults: 40 })
    const error = await rejection(provider.search({ query: 'q' }, { signal: controller.signal }))
    assert.equal(error.code, 'WEB_ABORTED')
    assert.equal(server.requests.length, 2)
    await provider.close()
  })
})
