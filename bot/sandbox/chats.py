"""Chats and members: users, groups and forum topics, who is in them, and the bot's place there.

The simulation API creates the world (``add_user``, ``add_group``, ``add_topic``) and changes
it as Telegram would tell the bot (a member leaves, a user blocks the bot, the bot is removed,
a group becomes a supergroup); the Bot API side answers ``getChat``, ``getChatMember``,
``getChatAdministrators``, ``getChatMemberCount`` and ``leaveChat``, and says whether the bot
may write in a chat at all (403 for a user who never started or blocked it, for a group that
removed it; 400 with ``migrate_to_chat_id`` for an upgraded group).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from .calls import Args, JSONValue, api_method
from .models import ApiError, FakeChat, FakeTopic, FakeUser, JSONDict
from .store import ChatRef
from .updates import Updates

__all__ = ["Chats"]


class Chats(Updates):
    """Users, groups, topics and memberships."""

    # ----------------------------------------------------------------------------------------
    # Simulation API: the world

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        started: bool = True,
        is_premium: bool = False,
        user_id: int | None = None,
    ) -> FakeUser:
        """Create a user; ``started`` users have started the bot and may receive DMs."""
        user = FakeUser(
            id=user_id if user_id is not None else next(self._user_ids),
            first_name=first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
            is_premium=is_premium,
            started=started,
        )
        if user.id in self.users or user.id in self.chats:
            raise ValueError(f"id {user.id} is already taken")
        self.users[user.id] = user
        self.revision += 1
        return user

    def add_group(
        self,
        title: str,
        *,
        supergroup: bool = True,
        forum: bool = False,
        admins: Iterable[FakeUser] = (),
        members: Iterable[FakeUser] = (),
        bot_admin: bool = False,
        username: str | None = None,
        chat_id: int | None = None,
    ) -> FakeChat:
        """Create a group the bot is in; the first of ``admins`` is its creator."""
        if forum and not supergroup:
            raise ValueError("only supergroups can be forums")
        if chat_id is None:
            number = next(self._group_ids)
            chat_id = -1_001_000_000_000 - number if supergroup else -400_000_000 - number
        if chat_id in self.chats:
            raise ValueError(f"chat {chat_id} already exists")
        admin_list = list(admins)
        chat = FakeChat(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            is_forum=forum,
            creator_id=admin_list[0].id if admin_list else None,
            admin_ids={user.id for user in admin_list},
            member_ids={user.id for user in itertools.chain(admin_list, members)},
            bot_status="administrator" if bot_admin else "member",
        )
        self.chats[chat.id] = chat
        self._messages[chat.id] = {}
        self.revision += 1
        return chat

    def add_topic(self, chat: ChatRef, name: str, *, creator: FakeUser | None = None) -> FakeTopic:
        """Create a forum topic (no update is sent); its thread id is returned in the topic."""
        group = self.chat(chat)
        if not group.is_forum:
            raise ValueError(f"chat {group.id} is not a forum")
        sender = creator or (self.users.get(group.creator_id or 0)) or self.bot
        message = self._new_message(group, sender)
        topic = FakeTopic(thread_id=message.message_id, name=name)
        message.message_thread_id = topic.thread_id
        message.is_topic_message = True
        message.service = {"forum_topic_created": {"name": name, "icon_color": topic.icon_color}}
        group.topics[topic.thread_id] = topic
        return topic

    def join_group(self, user: FakeUser, chat: ChatRef) -> None:
        """Make ``user`` a member of a group (no update is sent)."""
        self.chat(chat).member_ids.add(user.id)

    async def leave_group(self, user: FakeUser, chat: ChatRef) -> None:
        """``user`` leaves a group: the bot sees a ``left_chat_member`` service message."""
        group = self.chat(chat)
        group.member_ids.discard(user.id)
        group.admin_ids.discard(user.id)
        message = self._new_message(group, user)
        message.service = {"left_chat_member": user.to_dict()}
        if group.bot_status not in ("left", "kicked"):
            await self._enqueue("message", {"message": self._message_dict(message)})

    def start_bot(self, user: FakeUser) -> None:
        """Mark ``user`` as having started (and not blocked) the bot; enqueues nothing."""
        user.started = True
        user.blocked = False

    async def block_bot(self, user: FakeUser) -> None:
        """``user`` blocks the bot: DMs now fail with 403; a my_chat_member update is sent."""
        user.blocked = True
        await self._enqueue(
            "my_chat_member",
            self._chat_member_updated(self.private_chat(user), user, "member", "kicked"),
        )

    async def kick_bot(self, chat: ChatRef, *, by: FakeUser | None = None) -> None:
        """Remove the bot from a group: sends now fail with 403; a my_chat_member is sent."""
        group = self.chat(chat)
        old = "administrator" if group.bot_is_admin else "member"
        group.bot_status = "kicked"
        actor = by or self.users.get(group.creator_id or 0) or self.bot
        await self._enqueue(
            "my_chat_member", self._chat_member_updated(group, actor, old, "kicked")
        )

    def migrate_group(self, chat: ChatRef) -> FakeChat:
        """Upgrade a basic group to a supergroup; sends to the old id then fail with 400."""
        group = self.chat(chat)
        if group.type != "group":
            raise ValueError("only basic groups can be migrated")
        supergroup = self.add_group(group.title or "", supergroup=True)
        supergroup.member_ids = set(group.member_ids)
        supergroup.admin_ids = set(group.admin_ids)
        supergroup.creator_id = group.creator_id
        supergroup.bot_status = group.bot_status
        group.migrated_to_chat_id = supergroup.id
        return supergroup

    # ----------------------------------------------------------------------------------------
    # Internals

    def _chat_member_updated(
        self, chat: FakeChat, actor: FakeUser, old: str, new: str
    ) -> JSONDict:
        def member(status: str) -> JSONDict:
            data: JSONDict = {"status": status, "user": self._bot_user_dict()}
            if status == "kicked":
                data["until_date"] = 0
            if status == "administrator":
                data.update(_admin_rights(chat))
            return data

        return {
            "my_chat_member": {
                "chat": chat.to_dict(),
                "from": actor.to_dict(),
                "date": self._clocks.unix(),
                "old_chat_member": member(old),
                "new_chat_member": member(new),
            }
        }

    def _check_writable(self, chat: FakeChat) -> None:
        if chat.is_private:
            user = chat.user
            assert user is not None
            if user.deactivated:
                raise ApiError.forbidden("user is deactivated")
            if user.blocked:
                raise ApiError.forbidden("bot was blocked by the user")
            if not user.started:
                raise ApiError.forbidden("bot can't initiate conversation with a user")
            return
        if chat.migrated_to_chat_id is not None:
            raise ApiError.bad_request(
                "group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to_chat_id},
            )
        kind = "supergroup" if chat.type == "supergroup" else "group"
        if chat.bot_status == "kicked":
            raise ApiError.forbidden(f"bot was kicked from the {kind} chat")
        if chat.bot_status == "left":
            raise ApiError.forbidden(f"bot is not a member of the {kind} chat")

    # ----------------------------------------------------------------------------------------
    # Bot API methods: chats and members

    @api_method("getChat")
    async def _get_chat(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        if (
            chat.is_private
            and chat.user is not None
            and not (chat.user.started or self._messages.get(chat.id))
        ):
            raise ApiError.bad_request("chat not found")
        if chat.is_group and chat.bot_status == "kicked":
            kind = "supergroup" if chat.type == "supergroup" else "group"
            raise ApiError.forbidden(f"bot was kicked from the {kind} chat")
        info: JSONDict = {
            **chat.to_dict(),
            "accent_color_id": chat.id % 7,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }
        if chat.description:
            info["description"] = chat.description
        if chat.pinned_message_ids:
            pinned = self._messages[chat.id][chat.pinned_message_ids[-1]]
            info["pinned_message"] = self._message_dict(pinned, nested=True)
        if chat.is_group:
            info["permissions"] = {
                "can_send_messages": True,
                "can_send_other_messages": True,
                "can_add_web_page_previews": True,
                "can_invite_users": True,
            }
        return info

    def _member_dict(self, chat: FakeChat, user: FakeUser) -> JSONDict:
        if user is self.bot or user.id == self.bot.id:
            status: str = chat.bot_status if chat.is_group else "member"
        elif chat.is_private:
            status = "member"
        elif user.id == chat.creator_id:
            status = "creator"
        elif user.id in chat.admin_ids:
            status = "administrator"
        elif user.id in chat.member_ids:
            status = "member"
        else:
            status = "left"
        data: JSONDict = {"status": status, "user": user.to_dict()}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(_admin_rights(chat))
            if user is self.bot:
                data["can_delete_messages"] = chat.bot_can_delete_messages
                data["can_pin_messages"] = chat.bot_can_pin_messages
        elif status == "kicked":
            data["until_date"] = 0
        return data

    @api_method("getChatMember")
    async def _get_chat_member(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        user_id = args.integer("user_id", required=True)
        user = self.bot if user_id == self.bot.id else self.users.get(user_id or 0)
        if user is None:
            raise ApiError.bad_request("user not found")
        if chat.is_private and user is not chat.user and user is not self.bot:
            raise ApiError.bad_request("user not found")
        return self._member_dict(chat, user)

    @api_method("getChatAdministrators")
    async def _get_chat_administrators(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_private:
            raise ApiError.bad_request("there are no administrators in the private chat")
        admins: list[FakeUser] = []
        if chat.creator_id in self.users:
            admins.append(self.users[chat.creator_id or 0])
        admins += [
            self.users[uid]
            for uid in sorted(chat.admin_ids)
            if uid in self.users and uid != chat.creator_id
        ]
        if chat.bot_is_admin:
            admins.append(self.bot)
        return [self._member_dict(chat, user) for user in admins]

    @api_method("getChatMemberCount")
    async def _get_chat_member_count(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_private:
            return 2
        bot_in = chat.bot_status in ("member", "administrator")
        return len(chat.member_ids) + (1 if bot_in else 0)

    @api_method("leaveChat")
    async def _leave_chat(self, args: Args) -> JSONValue:
        chat = self._chat_param(args)
        if chat.is_private:
            raise ApiError.bad_request("chat member status can't be changed in private chats")
        chat.bot_status = "left"
        return True


def _admin_rights(chat: FakeChat) -> JSONDict:
    return {
        "can_be_edited": False,
        "is_anonymous": False,
        "can_manage_chat": True,
        "can_delete_messages": True,
        "can_manage_video_chats": True,
        "can_restrict_members": True,
        "can_promote_members": False,
        "can_change_info": True,
        "can_invite_users": True,
        "can_post_stories": False,
        "can_edit_stories": False,
        "can_delete_stories": False,
        "can_pin_messages": True,
        "can_manage_topics": chat.is_forum,
    }
