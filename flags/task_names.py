"""The names of the flags app's Celery tasks, in one place: ``flags.tasks`` registers its tasks
under them, the notices layer sends by them (it must not import the tasks it sends), and the beat
schedule in the settings runs the periodic ones by name."""

NOTICE_TASK = "flags.tasks.notice_send"
NOTICES_DUE_TASK = "flags.tasks.notices_send_due"
DIGEST_TASK = "flags.tasks.moderator_digest_send"
ERASE_TASK = "flags.tasks.flag_emails_erase"
