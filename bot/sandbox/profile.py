"""The bot's own profile: ``getMe``, its command menus, names and descriptions, the chat menu
button, and ``logOut`` / ``close``.

What the bot sets is kept as it set it (commands by scope and language), so a client — the
chat page — can show the menu a user would see.
"""

from __future__ import annotations

import json
import re

from .calls import Args, JSONValue, api_method
from .models import ApiError, JSONDict
from .store import ApiStore

__all__ = ["Profile"]

_BOT_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")


class Profile(ApiStore):
    """The bot's identity and its menus."""

    @api_method("getMe")
    async def _get_me(self, args: Args) -> JSONValue:
        return {
            **self.bot.to_dict(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    @api_method("logOut")
    async def _log_out(self, args: Args) -> JSONValue:
        self.logged_out = True
        return True

    @api_method("close")
    async def _close(self, args: Args) -> JSONValue:
        self.closed = True
        return True

    # ----------------------------------------------------------------------------------------
    # Bot API methods: commands and bot profile

    @staticmethod
    def _scope_key(args: Args) -> str:
        scope = args.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or "type" not in scope:
            raise ApiError.bad_request("can't parse BotCommandScope JSON object")
        return json.dumps(scope, sort_keys=True)

    @api_method("setMyCommands")
    async def _set_my_commands(self, args: Args) -> JSONValue:
        commands = args.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError.bad_request("can't parse commands JSON object")
        clean: list[JSONDict] = []
        for command in commands:
            if not isinstance(command, dict):
                raise ApiError.bad_request("can't parse BotCommand JSON object")
            name = str(command.get("command", "")).lstrip("/")
            description = str(command.get("description", ""))
            if not _BOT_COMMAND_NAME.match(name):
                raise ApiError.bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description) <= 256:
                raise ApiError.bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
            clean.append({"command": name, "description": description})
        key = (self._scope_key(args), args.text("language_code") or "")
        if clean:
            self.commands[key] = clean
        else:
            self.commands.pop(key, None)
        return True

    @api_method("getMyCommands")
    async def _get_my_commands(self, args: Args) -> JSONValue:
        key = (self._scope_key(args), args.text("language_code") or "")
        return [dict(command) for command in self.commands.get(key, [])]

    @api_method("deleteMyCommands")
    async def _delete_my_commands(self, args: Args) -> JSONValue:
        self.commands.pop((self._scope_key(args), args.text("language_code") or ""), None)
        return True

    def _set_bot_text(self, args: Args, field_name: str, limit: int) -> JSONValue:
        value = args.text(field_name) or ""
        if len(value) > limit:
            raise ApiError.bad_request(f"{field_name} is too long")
        key = (field_name, args.text("language_code") or "")
        if value:
            self.bot_texts[key] = value
        else:
            self.bot_texts.pop(key, None)
        return True

    def _get_bot_text(self, args: Args, field_name: str, default: str = "") -> JSONValue:
        language = args.text("language_code") or ""
        value = self.bot_texts.get((field_name, language)) or self.bot_texts.get((field_name, ""))
        return {field_name: value if value is not None else default}

    @api_method("setMyName")
    async def _set_my_name(self, args: Args) -> JSONValue:
        return self._set_bot_text(args, "name", 64)

    @api_method("getMyName")
    async def _get_my_name(self, args: Args) -> JSONValue:
        return self._get_bot_text(args, "name", self.bot.first_name)

    @api_method("setMyDescription")
    async def _set_my_description(self, args: Args) -> JSONValue:
        return self._set_bot_text(args, "description", 512)

    @api_method("getMyDescription")
    async def _get_my_description(self, args: Args) -> JSONValue:
        return self._get_bot_text(args, "description")

    @api_method("setMyShortDescription")
    async def _set_my_short_description(self, args: Args) -> JSONValue:
        return self._set_bot_text(args, "short_description", 120)

    @api_method("getMyShortDescription")
    async def _get_my_short_description(self, args: Args) -> JSONValue:
        return self._get_bot_text(args, "short_description")

    @api_method("setChatMenuButton")
    async def _set_chat_menu_button(self, args: Args) -> JSONValue:
        button = args.get("menu_button") or {"type": "default"}
        if not isinstance(button, dict) or "type" not in button:
            raise ApiError.bad_request("can't parse menu button JSON object")
        self.menu_buttons[args.integer("chat_id")] = dict(button)
        return True

    @api_method("getChatMenuButton")
    async def _get_chat_menu_button(self, args: Args) -> JSONValue:
        chat_id = args.integer("chat_id")
        return dict(
            self.menu_buttons.get(chat_id) or self.menu_buttons.get(None) or {"type": "commands"}
        )
