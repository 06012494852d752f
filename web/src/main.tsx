import { render } from 'preact'
import { App } from './routes/app'
import { applyTheme } from './ui/theme'
import './styles/app.css'

applyTheme()
render(<App />, document.getElementById('app')!)
