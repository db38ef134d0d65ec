import { NotificationList } from '../parts/notifications.tsx';
import { useTitle } from '../parts/title.ts';

/** `/notifications`: the user's notifications, newest first, 50 at a time. */
export function Notifications() {
  useTitle('Notifications');
  return (
    <section class="view narrow-wide">
      <h1>Notifications</h1>
      <NotificationList limit={50} />
    </section>
  );
}
