export const name = "dsh-web-fetch-http"
export function apply() {}
