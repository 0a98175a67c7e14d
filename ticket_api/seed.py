"""Deterministic seed data: the tickets every tenant starts with (and returns to on reset).

Ticket ``t7`` carries a 40-comment thread so that one read of it is about 7.2 kB, the size
the workshop material uses when it compares storing whole responses with storing ids.
"""

from __future__ import annotations

from ticket_api.domain import Comment, Ticket

# (author, text) pairs of the t7 thread, oldest first. Plain ASCII so byte counts are stable.
_T7_THREAD: tuple[tuple[str, str], ...] = (
    ("lin", "Customer in Lisbon reports the card form spins for about thirty seconds and then"
     " shows a generic error. Two more reports came in overnight from Madrid."),
    ("kofi", "Taking a first look. Do we know if it happens on every card brand or only some?"
     " The gateway dashboard shows nothing unusual for the last day."),
    ("lin", "All three reports were Visa. One customer retried with Mastercard and it went"
     " through on the first attempt, so it may be brand specific."),
    ("sam", "On call here. I see a spike of 504s from the payments proxy between 02:10 and"
     " 02:40 UTC, all on the eu-west pool. Nothing in us-east."),
    ("kofi", "That lines up with the Lisbon report. The proxy timeout is 25 seconds, which"
     " matches the spinner the customer described before the error page."),
    ("ines", "How many orders does this affect per day? I need a number before I decide"
     " whether this goes ahead of the invoice export work this sprint."),
    ("sam", "Rough count from the proxy logs: around 140 failed checkouts yesterday, most of"
     " them retried successfully within ten minutes. Roughly 35 never came back."),
    ("ines", "Thirty-five lost orders a day is enough to matter. Keeping the priority where it"
     " is for now but please post an update before the standup tomorrow."),
    ("kofi", "Found something: the 3-D Secure challenge call for Visa goes through a separate"
     " host, and that host resolves to an address we retired last month."),
    ("sam", "Confirmed with dig from two eu-west nodes: the old address still answers, but"
     " slowly, so requests do not fail fast, they just hang until the proxy gives up."),
    ("lin", "Another report from a customer in Dublin, same symptoms. I told them to retry"
     " with a different card for now. Should I post a status page notice?"),
    ("ines", "Yes, a short notice is fine: payments with some Visa cards may be slow in"
     " Europe, we are working on it. No root cause wording until we are sure."),
    ("kofi", "The stale address comes from a resolver cache on the proxy hosts. Its TTL is"
     " set to one week, which explains why only some nodes still have it."),
    ("sam", "I can flush the resolver cache on the eu-west pool now. It is safe during"
     " business hours; the proxy re-resolves lazily and keeps open connections."),
    ("kofi", "Go ahead. I will watch the 504 rate on the dashboard while you do it and post"
     " the numbers here once we have fifteen minutes of traffic after the flush."),
    ("sam", "Flushed on all six eu-west nodes at 09:12 UTC. No errors during the flush."
     " Starting the fifteen minute watch now and will report back when it ends."),
    ("kofi", "Fifteen minutes after the flush: zero 504s on eu-west, checkout latency back to"
     " the usual 800 ms at p95. Visa challenge calls complete in under a second."),
    ("lin", "Lisbon customer confirms the payment went through. I will ask the Madrid and"
     " Dublin customers to try again and update the support tickets on our side."),
    ("ines", "Good news. Leaving this open until we understand why the TTL was a week and"
     " whether other hosts behind the proxy could bite us the same way later."),
    ("kofi", "The one week TTL came from a config template copied from the batch cluster,"
     " where long caching made sense. The proxy should use the record TTL instead."),
    ("sam", "Checked the other clusters: us-east uses the record TTL already, apac uses the"
     " copied template too. Apac has not hit this yet because no address changed there."),
    ("kofi", "Drafted a config change that drops the override on eu-west and apac. Needs a"
     " rolling restart of the proxies, about twenty minutes per region with drain."),
    ("ines", "Schedule the restart outside the European evening peak, please. Tuesday"
     " morning UTC works for me and for support; Lin, can you confirm coverage?"),
    ("lin", "Support has two people on shift Tuesday morning, that is enough. I will keep"
     " the status page notice up until the restart is done, then close it."),
    ("sam", "Restart window booked for Tuesday 07:00 to 08:00 UTC. Change request filed"
     " and linked from the runbook. Rollback is reverting the single config line."),
    ("kofi", "Added an alert on resolver cache age above one hour on the proxy hosts, so a"
     " stale entry shows up on the dashboard before customers notice anything."),
    ("ines", "Thanks. For the retro: what would have caught this earlier? The retirement of"
     " the old address had a checklist and this dependency was not on it."),
    ("sam", "The checklist covered our own services but not third-party hosts we call"
     " through the proxy. I will add a step that greps the proxy configs for the address."),
    ("lin", "From support: the first report came in at 02:25 and we only escalated at 08:40."
     " Night shift did not know payment issues count as urgent. I will fix the guide."),
    ("kofi", "Apac restart done early as a test on one node: resolver now honours the record"
     " TTL of five minutes, latency unchanged, no errors in the proxy logs."),
    ("sam", "Tuesday window went fine on eu-west. All six nodes restarted with drain, zero"
     " failed checkouts during the window. Apac completed as well, all green."),
    ("lin", "Status page notice closed. Madrid and Dublin customers both paid successfully"
     " and got a small voucher as an apology. Support tickets on our side are closed."),
    ("ines", "Great work everyone. Keeping this ticket open one more week to watch the new"
     " alert, then we close it. Retro notes are linked from the incident wiki page."),
    ("kofi", "The alert fired once on Thursday on a single apac node: a cache entry aged past"
     " the hour because of a quiet period. Not a real problem, raising the threshold."),
    ("sam", "Threshold raised to six hours, which still catches the one week case easily."
     " No other alerts since. Dashboards for both regions look normal all week."),
    ("lin", "No new payment complaints from Europe or Asia this week. The night shift guide"
     " now lists checkout failures as urgent with the on-call number next to it."),
    ("kofi", "Wrote a short postmortem: stale resolver cache, config copied from batch, no"
     " alert on cache age, and slow escalation at night. Four actions, three done."),
    ("ines", "The remaining action is the address retirement checklist. Sam, is the grep"
     " step merged? If so I think we can close this ticket after the weekly review."),
    ("sam", "Merged yesterday, and the checklist now links the script that searches all"
     " proxy and gateway configs for an address before anyone retires it."),
    ("kofi", "Leaving the ticket in progress until Ines closes it at the weekly review."
     " Thanks all, this was a good example of a small config slip with a very long tail."),
)


def seed_tickets() -> tuple[Ticket, ...]:
    """Return the seed tickets ``t1`` .. ``t8``, all at version 1.

    Returns:
        A fresh tuple each call; values are frozen, so callers cannot alter the seed.
    """
    thread = tuple(Comment(author=a, text=t) for a, t in _T7_THREAD)
    return (
        Ticket("t1", "Login page shows a blank screen on Safari 17", "open", "high", "kofi",
               (Comment("lin", "Reproduced on macOS 14 with Safari 17.4."),), 1),
        Ticket("t2", "Add CSV export to the invoice list", "in_progress", "normal", "ines",
               (), 1),
        Ticket("t3", "Typo in the password reset email", "closed", "low", None,
               (Comment("lin", "Fixed in the template, deployed."),), 1),
        Ticket("t4", "Search ignores accents in customer names", "open", "normal", None,
               (), 1),
        Ticket("t5", "Nightly backup job exceeded its window", "open", "urgent", "sam",
               (Comment("sam", "Ran 3h40m, window is 3h."),
                Comment("kofi", "Index rebuild moved into the same slot last week.")), 1),
        Ticket("t6", "Dark mode contrast on the settings page", "open", "low", None, (), 1),
        Ticket("t7", "Checkout times out for some EU Visa card payments", "in_progress", "normal",
               "kofi", thread, 1),
        Ticket("t8", "Rate limit headers missing on 429 responses", "open", "normal", "ines",
               (), 1),
    )
