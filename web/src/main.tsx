import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('root') as HTMLElement);

if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch(() => undefined);
  });
}
