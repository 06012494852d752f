// Light or dark: the system's choice unless the person picked one (kept in localStorage: a preference, nothing secret).
const KEY = 'taskd-theme'

export function applyTheme(): void {
  const chosen = localStorage.getItem(KEY)
  if (chosen === 'light' || chosen === 'dark') document.documentElement.dataset.theme = chosen
  else delete document.documentElement.dataset.theme
}

export function toggleTheme(): void {
  const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches
  localStorage.setItem(KEY, dark ? 'light' : 'dark')
  applyTheme()
}
