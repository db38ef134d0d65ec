import { render } from 'preact';
import './styles.css';
import { restore } from './session.ts';
import { App } from './views/app.tsx';

/** A promise rejection no view handled: shown to the user, never silent. */
addEventListener('unhandledrejection', (event) => {
  event.preventDefault();
  const reason = event.reason instanceof Error ? event.reason.message : String(event.reason);
  document.dispatchEvent(new CustomEvent('app-error', { detail: reason }));
});

render(<App />, document.getElementById('app')!);
void restore();
