import { useTranslation } from 'react-i18next';
import classes from './SkipLink.module.css';

/** The id of the page's main region, where "Skip to main content" moves the focus. */
export const MAIN_ID = 'main-content';

/** The class the main region takes so that the focus the link gives it shows no ring. */
export const mainClass = classes.main;

/**
 * "Skip to main content" (WCAG 2.4.1): the first Tab stop, out of view until focused. Enter moves
 * the focus to the main region, so the next Tab reaches the page's first control past the header.
 * The URL is left as it is (no `#main-content` added to it).
 */
export function SkipLink() {
  const { t } = useTranslation();
  return (
    <a
      href={`#${MAIN_ID}`}
      className={classes.skip}
      onClick={(event) => {
        const main = document.getElementById(MAIN_ID);
        if (!main) return;
        event.preventDefault();
        main.focus();
      }}
    >
      {t('app.skipToMain')}
    </a>
  );
}
