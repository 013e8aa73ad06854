export const name = "dsh-web-search-deepseek"
export function apply() {}
