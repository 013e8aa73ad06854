import { chooseRoute, ProxySettingError, type ProxySettings, type Route } from 'dsh-host'
import { WebError } from './errors.js'

/**
 * The contract's route decision for a provider: the same `chooseRoute`, a
 * proxy setting that is not a proxy URL reported as the seam's
 * INVALID_ARGUMENT, so a provider's errors stay in the closed union.
 */
export function routeFor(url: URL, settings: ProxySettings): Route {
  try {
    return chooseRoute(url, settings)
  } catch (error) {
    if (ProxySettingError.is(error)) throw new WebError('INVALID_ARGUMENT', error.message, { cause: error, details: error.details })
    throw error
  }
}
