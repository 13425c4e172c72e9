"""The flags' Celery task names, for the mail's senders and the beat without importing the tasks."""

NOTICE_TASK = "flags.tasks.notice_send"
NEW_NOTICES_TASK = "flags.tasks.notices_send_new"
NOTICES_DUE_TASK = "flags.tasks.notices_send_due"
DIGEST_TASK = "flags.tasks.moderator_digest_send"
ERASE_TASK = "flags.tasks.flag_emails_erase"
