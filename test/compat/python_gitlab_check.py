"""Drives python-gitlab (the library) through the calls its own functional tests make, against `forgectl sandbox`.

Run by test/compat/python-gitlab.test.ts with GITLAB_URL and GITLAB_TOKEN (an administrator's token) set. Each
check prints one line "ok <name>" or "FAIL <name>: <error>" and the exit status is the number of failed checks.
"""

import base64
import datetime
import hashlib
import io
import os
import subprocess
import sys
import tempfile
import traceback
import uuid

import gitlab
import gitlab.const
import requests

URL = os.environ["GITLAB_URL"]
TOKEN = os.environ["GITLAB_TOKEN"]
gl = gitlab.Gitlab(URL, private_token=TOKEN)
gl.auth()

RSA_KEY = (
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDFMkH2ewoqw18UKUL9Fpb6SdBAKs9VBoTVtLXmURhHUL7F77EfQhkHxSMp1XNPGbCCFLtcO7"
    "NVH6giAi+obkqmls/4+fWs1Pid9xfvQQZQll/7Rudv9BmsBwqt+yjjDuzE7wFrrSIMJPDZ/xeR/FH3Bw7OCG4PZqfSEs8beYrcugpKR1QcEWnW"
    "YeA2sMZi+8U14VGqO3+hXYnplZRsquau+W+EndMLZBTZ0EUd3CvJtPH2biTxZuYLMFlhlRrI5LIyMcV0bdPd9EB3Bfdt2HcMO3tzccxvr1xZN5"
    "TTKthtrd6IeDrqzSGv3UVgcMkclIumHwMe+/vJeDyXNL97vMgR compat@host"
)
ED_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDWry56A0Y3GtGgVNLbBb1WnBJqk39ej7uEid+fjX3V8 compat@laptop"
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def new_user(**extra):
    name = unique("u")
    return gl.users.create({"email": f"{name}@example.com", "username": name, "name": name.upper(), "password": "Sandbox-pass-1", **extra})


def new_project(**extra):
    return gl.projects.create({"name": unique("project"), **extra})


def new_group(**extra):
    path = unique("group")
    return gl.groups.create({"name": path, "path": path, **extra})


def fingerprint(key):
    digest = hashlib.sha256(base64.b64decode(key.split()[1])).digest()
    return "SHA256:" + base64.b64encode(digest).rstrip(b"=").decode()


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def raises(error, call):
    try:
        call()
    except error as caught:
        return caught
    raise AssertionError(f"expected {error.__name__}")


CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


# --- users -----------------------------------------------------------------------------------------------------


@check
def users_create_with_avatar_and_find():
    name = unique("avatar")
    user = gl.users.create({"email": f"{name}@example.com", "username": name, "name": name, "password": "Sandbox-pass-1", "avatar": io.BytesIO(PNG)})
    found = gl.users.list(username=name)[0]
    expect(found.username == user.username and found.email == user.email, "the new user is listed with its email")
    expect(requests.get(user.avatar_url, timeout=10).content == PNG, "the avatar is served where avatar_url points")


@check
def users_block_unblock_ban():
    user = new_user()
    expect(user.block() is True, "block answers true")
    expect(user in gl.users.list(blocked=True), "listed as blocked")
    expect(user.block() is None, "blocking again answers null")
    expect(user.unblock() is True, "unblock answers true")
    expect(user in gl.users.list(blocked=False, get_all=True), "listed again")
    expect(user.unblock() is False, "unblocking again answers false")
    user.ban()
    expect(gl.users.get(user.id).state == "banned", "banned")
    user.unban()
    expect(gl.users.get(user.id).state == "active", "active again")


@check
def users_update_search_delete():
    user = new_user()
    user.bio = "This is the user bio"
    user.save()
    expect(gl.users.get(user.id).bio == "This is the user bio", "bio saved")
    second = gl.users.create({"email": f"{user.email}.2", "username": f"{user.username}_2", "name": "Foo Bar", "password": "Sandbox-pass-1"})
    expect(gl.users.list(search=second.username)[0].id == second.id, "search finds the second user")
    expect({user.id, second.id} == {u.id for u in gl.users.list(search=user.username)}, "search finds both")
    expect(not gl.users.list(search="asdf-nothing"), "no match")
    expect(user.projects.list() == [], "a new user has no projects")
    second.delete()
    raises(gitlab.GitlabGetError, lambda: gl.users.get(second.id))


@check
def users_identities():
    user = new_user()
    user.provider = "test_provider"
    user.extern_uid = "1"
    user.save()
    expect("test_provider" in [i["provider"] for i in user.identities], "identity added")
    user.identityproviders.delete("test_provider")
    expect(gl.users.get(user.id).identities == [], "identity removed")


@check
def users_ssh_keys_and_emails():
    user = new_user()
    key = user.keys.create({"title": "testkey", "key": RSA_KEY})
    expect(key in user.keys.list(), "key listed")
    expect(user.keys.get(key.id).key == key.key, "key read back")
    by_id = gl.keys.get(key.id)
    expect(by_id.title == key.title and by_id.key == key.key, "keys.get by id (administrators)")
    by_fingerprint = gl.keys.get(fingerprint=fingerprint(RSA_KEY))
    expect(by_fingerprint.title == key.title and by_fingerprint.user["username"] == user.username, "keys.get by fingerprint")
    key.delete()
    email = user.emails.create({"email": f"{unique('alt')}@example.com"})
    expect(email in user.emails.list(), "email listed")
    email.delete()
    expect(user.emails.list() == [], "email removed")


@check
def current_user_keys_and_emails():
    mail = gl.user.emails.create({"email": f"{unique('current')}@example.com"})
    expect(mail in gl.user.emails.list(), "own email listed")
    mail.delete()
    key = gl.user.keys.create({"title": "testkey", "key": ED_KEY})
    expect(key in gl.user.keys.list(), "own key listed")
    key.delete()


@check
def users_personal_access_tokens():
    user = new_user()
    today = datetime.date.today().isoformat()
    token = user.personal_access_tokens.create({"name": "today", "scopes": ["api"], "expires_at": today})
    expect(token.expires_at == today and token.token, "a token may expire today")
    expect(any(t.id == token.id for t in gl.personal_access_tokens.list(user_id=user.id)), "listed for its user")
    gl.personal_access_tokens.delete(token.id)


# --- groups ----------------------------------------------------------------------------------------------------


@check
def groups_subgroups_members_sharing():
    user, user2 = new_user(), new_user()
    group1, group2 = new_group(), new_group()
    p_id = gl.groups.list(search=group2.path)[0].id
    group3 = gl.groups.create({"name": unique("sub"), "path": unique("sub"), "parent_id": p_id})
    group4 = new_group()
    expect({group1, group2, group3, group4} <= set(gl.groups.list(get_all=True)), "all listed")
    expect(gl.groups.list(search=group1.path)[0].id == group1.id, "search")
    expect(group3.parent_id == p_id, "parent_id")
    expect(group2.subgroups.list()[0].id == group3.id, "subgroups")
    expect(group2.descendant_groups.list()[0].id == group3.id, "descendant groups")
    filtered = gl.groups.list(skip_groups=[group3.id, group4.id], get_all=True)
    expect(group3 not in filtered and group4 not in filtered, "skip_groups")

    group1.members.create({"access_level": gitlab.const.AccessLevel.OWNER, "user_id": user.id})
    group1.members.create({"access_level": gitlab.const.AccessLevel.GUEST, "user_id": user2.id})
    group2.members.create({"access_level": gitlab.const.AccessLevel.OWNER, "user_id": user2.id})

    group4.share(group1.id, gitlab.const.AccessLevel.DEVELOPER)
    group4.share(group2.id, gitlab.const.AccessLevel.MAINTAINER)
    expect(len(gl.groups.get(group4.id).shared_with_groups) == 2, "shared with two groups")
    group4.unshare(group1.id)
    expect(len(gl.groups.get(group4.id).shared_with_groups) == 1, "unshared one")

    memberships1 = user.memberships.list()
    expect(len(memberships1) == 1 and memberships1[0].source_type == "Namespace" and memberships1[0].access_level == 50, "memberships")
    expect(len(user2.memberships.list()) == 2, "two memberships")
    expect(len(user.memberships.list(type="Project")) == 0 and len(user.memberships.list(type="Namespace")) == 1, "by type")
    error = raises(gitlab.GitlabListError, lambda: user.memberships.list(type="Invalid"))
    expect("type does not have a valid value" in str(error), str(error))
    error = raises(gitlab.GitlabListError, lambda: user.memberships.list(sudo=user.username))
    expect("403 Forbidden" in str(error), str(error))

    expect(len(group1.members.list()) == 3, "creator, user, user2")
    expect(len(group2.members.list()) == 2, "creator, user2")
    result = group1.members.list(user_ids=[user.id, 99999])
    expect(len(result) == 1 and result[0].id == user.id, "user_ids filter")
    group1.members.delete(user.id)
    expect(group1.members_all.list(), "members/all")
    member = group1.members.get(user2.id)
    member.access_level = gitlab.const.AccessLevel.OWNER
    member.save()
    expect(group1.members.get(user2.id).access_level == gitlab.const.AccessLevel.OWNER, "access level changed")
    group2.members.delete(gl.user.id)


@check
def groups_projects_in_subgroups_and_transfer():
    group1, group2 = new_group(), new_group()
    group3 = gl.groups.create({"name": unique("subgroup"), "path": unique("subgroup"), "parent_id": group1.id})
    gr1_project = gl.projects.create({"name": unique("gr1"), "namespace_id": group1.id})
    gr2_project = gl.projects.create({"name": unique("gr2"), "namespace_id": group3.id})
    expect(gr1_project.namespace["id"] == group1.id, "project in group")
    expect(gr2_project.namespace["parent_id"] == group1.id, "project in subgroup")
    expect({p.id for p in group1.projects.list(include_subgroups=True)} == {gr1_project.id, gr2_project.id}, "include_subgroups")
    groups = {g.id for g in gl.projects.get(gr2_project.id).groups.list()}
    expect(groups == {group1.id, group3.id}, "groups of a project")
    transfer = new_group()
    transfer.transfer(group2.id)
    expect(gl.groups.get(transfer.id).parent_id == group2.id, "moved under group2")
    transfer.transfer()
    moved = gl.groups.get(transfer.id)
    expect(moved.path == moved.full_path, "back at the top level")
    gr2_project.delete()
    group3.delete()


@check
def groups_badges():
    group = new_group()
    badge = group.badges.create({"link_url": "http://example/img.svg", "image_url": "http://example.com"})
    expect(badge in group.badges.list(), "listed")
    badge.image_url = "http://another.example.com"
    badge.save()
    expect(group.badges.get(badge.id).image_url == "http://another.example.com", "changed")
    badge.delete()


# --- projects --------------------------------------------------------------------------------------------------


@check
def projects_create_list_owned_sudo():
    user = new_user()
    expect(gl.projects.head()["x-total"], "X-Total on HEAD /projects")
    admin_project = new_project()
    expect(gl.projects.head(admin_project.id)["content-type"] == "application/json", "HEAD of a project")
    expect(admin_project in gl.projects.list(search=admin_project.name), "search")
    sudo_project = gl.projects.create({"name": unique("sudo")}, sudo=user.id)
    created = gl.projects.list(get_all=True)
    expect(admin_project in created and sudo_project in created, "both listed")
    owned = gl.projects.list(owned=True, get_all=True)
    expect(admin_project in owned and sudo_project not in owned, "owned")
    expect(len(created) == len(list(gl.projects.list(iterator=True))), "iterator sees the same")
    page1, page2 = gl.projects.list(per_page=1, page=1), gl.projects.list(per_page=1, page=2)
    expect(len(page1) == 1 and len(page2) == 1 and page1[0].id != page2[0].id, "pages")
    admin_project.delete()
    sudo_project.delete()


@check
def projects_members_badges_transfer():
    user = new_user()
    project = new_project()
    member = project.members.create({"user_id": user.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
    expect(member in project.members.list() and member.access_level == 30, "member")
    member.delete()
    badge = project.badges.create({"link_url": "http://example/img.svg", "image_url": "http://example.com"})
    expect(badge in project.badges.list(), "badge listed")
    badge.image_url = "http://another.example.com"
    badge.save()
    expect(project.badges.get(badge.id).image_url == "http://another.example.com", "badge changed")
    badge.delete()
    group = new_group()
    project.transfer(group.id)
    expect(gl.projects.get(project.id).namespace["path"] == group.full_path, "moved to the group")
    project.transfer(gl.user.username)
    expect(gl.projects.get(project.id).namespace["path"] == gl.user.username, "moved back")


@check
def projects_update_archive_share_delete_restore():
    group = new_group()
    project = gl.projects.create({"name": unique("settings"), "namespace_id": group.id, "initialize_with_readme": True})
    project.description = "changed by python-gitlab"
    project.merge_method = "ff"
    project.only_allow_merge_if_pipeline_succeeds = True
    project.save()
    fresh = gl.projects.get(project.id)
    expect(fresh.description == "changed by python-gitlab" and fresh.merge_method == "ff" and fresh.only_allow_merge_if_pipeline_succeeds, "saved")
    project.archive()
    expect(gl.projects.get(project.id).archived, "archived")
    project.unarchive()
    expect(not gl.projects.get(project.id).archived, "unarchived")
    other = new_group()
    project.share(other.id, gitlab.const.AccessLevel.DEVELOPER)
    expect(gl.projects.get(project.id).shared_with_groups[0]["group_id"] == other.id, "shared")
    project.unshare(other.id)
    expect(gl.projects.get(project.id).shared_with_groups == [], "unshared")
    # Delayed deletion (Premium): marked, restorable, then deleted at once with permanently_remove and full_path.
    project.delete()
    expect(gl.projects.get(project.id).marked_for_deletion_on, "marked for deletion")
    project.restore()
    expect(gl.projects.get(project.id).marked_for_deletion_on is None, "restored")
    gl.projects.delete(project.id)
    gl.projects.delete(project.id, query_parameters={"permanently_remove": True, "full_path": project.path_with_namespace})
    raises(gitlab.GitlabGetError, lambda: gl.projects.get(project.id))


@check
def projects_members_update_all():
    user = new_user()
    group = new_group()
    project = gl.projects.create({"name": unique("members"), "namespace_id": group.id})
    member = project.members.create({"user_id": user.id, "access_level": gitlab.const.AccessLevel.DEVELOPER, "expires_at": "2031-01-01"})
    expect(member.expires_at == "2031-01-01", "expiry")
    member.access_level = gitlab.const.AccessLevel.MAINTAINER
    member.save()
    expect(project.members.get(user.id).access_level == 40, "updated")
    expect({m.id for m in project.members_all.list(get_all=True)} >= {user.id, gl.user.id}, "members/all with the group's")
    expect(project.members_all.get(gl.user.id).access_level == 50, "members/all/:id")
    error = raises(gitlab.GitlabCreateError, lambda: project.members.create({"user_id": user.id, "access_level": 30}))
    expect("409" in str(error), str(error))
    project.members.delete(user.id)
    expect(user.id not in {m.id for m in project.members.list()}, "deleted")


@check
def groups_update_delete():
    group = new_group()
    group.description = "changed by python-gitlab"
    group.visibility = "internal"
    group.request_access_enabled = False
    group.save()
    fresh = gl.groups.get(group.id)
    expect(fresh.description == "changed by python-gitlab" and fresh.visibility == "internal" and not fresh.request_access_enabled, "saved")
    sub = gl.groups.create({"name": unique("sub"), "path": unique("sub"), "parent_id": group.id})
    sub.delete()
    expect(gl.groups.get(sub.id).marked_for_deletion_on, "marked for deletion")
    gl.groups.delete(sub.id, query_parameters={"permanently_remove": True, "full_path": sub.full_path})
    raises(gitlab.GitlabGetError, lambda: gl.groups.get(sub.id))


@check
def projects_integrations():
    project = new_project()
    expect(project.services.update("emails-on-push", {"recipients": "email@example.com"})["active"], "set up")
    project.services.update("asana", {"api_key": "api_key"})
    service = project.services.get("asana")
    expect(service.active, "active")
    service.api_key = "whatever"
    service.save()
    expect(project.services.list()[0].active, "listed")
    service.delete()
    raises(gitlab.GitlabGetError, lambda: project.services.get("asana"))


@check
def projects_access_tokens():
    project = new_project()
    today = datetime.date.today().isoformat()
    token = project.access_tokens.create({"name": "test-token", "scopes": ["api", "read_repository"], "expires_at": today})
    expect(token.token and token.expires_at == today, "created, expiring today")
    expect(any(t.id == token.id for t in project.access_tokens.list()), "listed")
    group = new_group()
    group_token = group.access_tokens.create({"name": "test-token", "scopes": ["api"], "expires_at": today})
    expect(any(t.id == group_token.id for t in group.access_tokens.list()), "group token listed")
    group_token.delete()


@check
def projects_push_rules():
    project = new_project()
    # Without a rule the service answers null, which python-gitlab reports as a parsing error.
    raises(gitlab.GitlabParsingError, lambda: project.pushrules.get())
    rules = project.pushrules.create({"deny_delete_tag": True})
    expect(rules.deny_delete_tag, "created")
    rules.deny_delete_tag = False
    rules.save()
    expect(not project.pushrules.get().deny_delete_tag, "changed")
    rules.delete()
    raises(gitlab.GitlabParsingError, lambda: project.pushrules.get())


@check
def projects_protected_tags():
    project = new_project()
    tag = project.protectedtags.create({"name": "v*", "create_access_level": 40})
    expect(tag.name == "v*" and tag.create_access_levels[0]["access_level"] == 40, "protected")
    expect(tag in project.protectedtags.list(), "listed")
    expect(project.protectedtags.get("v*").name == "v*", "read back")
    tag.delete()
    expect(project.protectedtags.list() == [], "unprotected")


@check
def projects_protected_branches():
    # test_project_protected_branches (tests/functional/api/test_projects.py) of this python-gitlab: the project has no
    # commit yet, so its default branch is not protected yet either.
    project = new_project()
    p_b = project.protectedbranches.create({"name": "*-stable"})
    expect(p_b.name == "*-stable", "created")
    expect(len(project.protectedbranches.list()) == 1, "listed")
    p_b = project.protectedbranches.get("*-stable")
    p_b.delete()
    expect(len(project.protectedbranches.list()) == 0, "unprotected")
    # The documentation's examples: levels; a name protected twice and a user who is not a member are refused.
    p_b = project.protectedbranches.create({"name": "release/*", "merge_access_level": 30, "push_access_level": 40})
    expect(p_b.merge_access_levels[0]["access_level"] == 30 and p_b.push_access_levels[0]["access_level"] == 40, "levels")
    raises(gitlab.GitlabCreateError, lambda: project.protectedbranches.create({"name": "release/*"}))
    raises(gitlab.GitlabCreateError, lambda: project.protectedbranches.create({"name": "x", "allowed_to_push": [{"user_id": 99999}]}))


# --- merge requests and approvals -------------------------------------------------------------------------------


def project_with_merge_request():
    project = new_project(initialize_with_readme=True)
    branch = unique("branch")
    project.files.create({"file_path": f"README.{branch}", "branch": branch, "start_branch": project.default_branch, "content": "Initial content", "commit_message": "New commit in new branch"})
    mr = project.mergerequests.create({"source_branch": branch, "target_branch": project.default_branch, "title": "MR readme2"})
    return project, mr


@check
def merge_requests_get_list():
    project, merge_request = project_with_merge_request()
    expect(project.mergerequests.get(merge_request.iid).iid == merge_request.iid, "get by iid")
    expect(project.mergerequests.get(str(merge_request.iid)).iid == merge_request.iid, "get by iid as text")
    expect(project.mergerequests.get(merge_request.iid, lazy=True).iid == merge_request.iid, "lazy")
    project.mergerequests.list(all=True, state="opened", author_id=423, approver_ids=[423])
    expect(project.mergerequests.list()[0].iid == merge_request.iid, "listed")


@check
def merge_request_approvals_and_rules():
    project, mr = project_with_merge_request()
    group = new_group()
    approval = project.approvals.get()
    reset_value = approval.reset_approvals_on_push
    approval.reset_approvals_on_push = not reset_value
    approval.merge_requests_author_approval = True  # the merge request is ours: let authors approve
    approval.save()
    saved = project.approvals.get()
    expect(saved.reset_approvals_on_push != reset_value and saved.merge_requests_author_approval, "approval settings saved")
    expect(not project.approvalrules.list(get_all=True), "no project rules")
    project.approvalrules.create({"name": "approval-rule", "approvals_required": 2, "group_ids": [group.id]})
    rules = project.approvalrules.list(get_all=True)
    expect(len(rules) == 1 and rules[0].approvals_required == 2, "project rule")
    rules[0].save()
    rules[0].delete()
    rule = mr.approval_rules.create({"name": "security", "approvals_required": 1, "user_ids": [gl.user.id]})
    expect(rule.name == "security", "MR rule created")
    expect([r.name for r in mr.approval_rules.list()] == ["security"], "MR rules listed")
    mr.approve()
    state = mr.approval_state.get()
    expect(state.approval_rules_overwritten and state.rules[0]["approved"], "approval state")
    expect(mr.approvals.get().approved_by[0]["user"]["username"] == gl.user.username, "approved by")
    mr.unapprove()
    # (Saving a merge request rule is left out: python-gitlab 3.x puts the project id where the rule id goes.)
    expect(mr.approval_rules.get(rule.id).approvals_required == 1, "MR rule by id")
    mr.approval_rules.get(rule.id).delete()
    expect(not mr.approval_rules.list(), "MR rule deleted")
    expect(mr.approval_state.get().rules == [], "approval state without rules")


@check
def audit_events():
    project, group = new_project(), new_group()
    project.badges.create({"link_url": "https://ci.example.com/%{project_path}", "image_url": "https://ci.example.com/badge.svg"})
    since = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)).isoformat()
    events = project.audit_events.list(created_after=since)
    expect(events and events[0].details["target_type"] == "Badge" and events[0].entity_id == project.id, "project events")
    expect(project.audit_events.get(events[0].id).id == events[0].id, "project event by id")
    group.badges.create({"link_url": "https://ci.example.com/g", "image_url": "https://ci.example.com/g.svg"})
    expect(group.audit_events.list(get_all=True)[0].entity_type == "Group", "group events")
    instance = gl.audit_events.list(entity_type="Project", entity_id=project.id, get_all=True)
    expect({e.entity_id for e in instance} == {project.id}, "instance events by entity")
    expect(gl.audit_events.get(instance[0].id).id == instance[0].id, "instance event by id")
    expect(len(gl.audit_events.list(created_before="2000-01-01T00:00:00Z")) == 0, "created_before")


@check
def merge_request_reset_approvals_by_bot():
    project, _ = project_with_merge_request()
    expires = (datetime.date.today() + datetime.timedelta(days=4)).isoformat()
    bot = project.access_tokens.create({"name": "bot", "scopes": ["api"], "expires_at": expires})
    bot_gitlab = gitlab.Gitlab(URL, private_token=bot.token)
    mr = bot_gitlab.projects.get(project.id, lazy=True).mergerequests.list()[0]
    expect(mr.reset_approvals(), "reset_approvals answers a JSON body")


@check
def project_deploy_tokens():
    # tests/functional/api/test_deploy_tokens.py
    project = new_project()
    today = datetime.date.today().isoformat()
    deploy_token = project.deploytokens.create({"name": "foo", "username": "bar", "expires_at": today, "scopes": ["read_registry"]})
    expect(deploy_token.token, "the value in the answer of create")
    expect(deploy_token in project.deploytokens.list(), "listed")
    expect(set(project.deploytokens.list()) <= set(gl.deploytokens.list()), "in the instance list")
    deploy_token = project.deploytokens.get(deploy_token.id)
    expect(deploy_token.name == "foo" and deploy_token.username == "bar", "name and username")
    expect(deploy_token.expires_at == f"{today}T00:00:00.000Z", "expiry as a date-time")
    expect(deploy_token.scopes == ["read_registry"], "scopes")
    deploy_token.delete()
    expect(deploy_token not in project.deploytokens.list(), "gone from the project")
    expect(deploy_token not in gl.deploytokens.list(), "gone from the instance list (the service destroys it)")


@check
def group_deploy_tokens():
    group = new_group()
    deploy_token = group.deploytokens.create({"name": "foo", "scopes": ["read_registry"]})
    expect(deploy_token in group.deploytokens.list(), "listed")
    expect(set(group.deploytokens.list()) <= set(gl.deploytokens.list()), "in the instance list")
    deploy_token = group.deploytokens.get(deploy_token.id)
    expect(deploy_token.name == "foo" and deploy_token.scopes == ["read_registry"], "read back")
    deploy_token.delete()
    expect(deploy_token not in group.deploytokens.list(), "gone from the group")
    expect(deploy_token not in gl.deploytokens.list(), "gone from the instance list")


@check
def runners_create_list_update_verify_delete():
    # tests/functional/conftest.py (gitlab_runner): gl.user.runners.create, then gl.runners.delete(token=...). This
    # python-gitlab predates gl.user.runners, so the same request goes through its HTTP layer.
    runner = gl.http_post("/user/runners", post_data={"runner_type": "instance_type", "run_untagged": True})
    expect(runner["token"].startswith("glrt-"), "the authentication token in the answer")
    gl.runners.verify(runner["token"])
    expect(any(r.id == runner["id"] for r in gl.runners.all(get_all=True)), "in the instance's list")
    expect(all(r.runner_type == "group_type" for r in gl.runners.all(type="group_type")), "type filter")
    expect(all(r.status == "stale" for r in gl.runners.all(status="stale")), "status filter")
    one = gl.runners.get(runner["id"])
    expect(one.status == "never_contacted" and one.is_shared, "status and sharing")
    one.description = "python-gitlab-runner"
    one.tag_list = ["docker"]
    one.save()
    expect(gl.runners.get(runner["id"]).tag_list == ["docker"], "updated")
    expect(isinstance(one.jobs.list(), list), "its jobs")
    project = gl.projects.get("acme/api")
    expect(any(r.description == "python-gitlab-runner" for r in project.runners.list(get_all=True)), "available to a project")
    gl.runners.delete(token=runner["token"])
    raises(gitlab.GitlabGetError, lambda: gl.runners.get(runner["id"]))
    raises(gitlab.GitlabVerifyError, lambda: gl.runners.verify(runner["token"]))


@check
def runners_of_a_group_and_their_jobs():
    group = gl.groups.get("acme")
    names = [r.description for r in group.runners.list(get_all=True)]
    expect("acme-k8s" in names, "a group runner")
    busy = [r for r in gl.runners.all(get_all=True) if r.description == "shared-docker-1"][0]
    jobs = gl.runners.get(busy.id).jobs.list(status="success")
    expect(jobs and all(job.status == "success" for job in jobs), "its successful jobs")


# --- instance ----------------------------------------------------------------------------------------------------


@check
def features_and_metadata():
    feature = gl.features.set("foo", 30)
    expect(feature.name == "foo", "set")
    expect(feature in gl.features.list(), "listed")
    feature.delete()
    version, _ = gl.version()
    expect(version != "unknown", "version")
    expect(gl.http_get("/metadata")["version"] == version, "metadata")


# --- CI/CD variables (tests/functional/api/test_variables.py) ---------------------------------------------------


def variables_round_trip(manager):
    variable = manager.create({"key": "key1", "value": "value1"})
    expect(variable.value == "value1", "created")
    expect(variable in manager.list(), "listed")
    variable.value = "new_value1"
    variable.save()
    variable = manager.get(variable.key)
    expect(variable.value == "new_value1", "changed")
    variable.delete()
    expect(variable not in manager.list(), "deleted")


@check
def instance_variables():
    variables_round_trip(gl.variables)


@check
def group_variables():
    variables_round_trip(new_group().variables)


@check
def project_variables():
    variables_round_trip(new_project().variables)


# --- repositories: branches and commits on a new project, snippets -----------------------------------------------


@check
def branches_from_main_of_a_new_project():
    # tests/functional/api/test_branches.py: the project fixture is empty; the service creates main first.
    project = gl.projects.create({"name": unique("branches")})
    branch = project.branches.create({"branch": "my.branch.name", "ref": "main"})
    expect(branch.name == "my.branch.name", "a name with periods")
    expect(project.branches.get("my.branch.name").name == branch.name, "read back by its name")
    expect(project.branches.get("main").commit["title"] == "Add README.md", "main was made with an empty README.md")
    branch.delete()
    raises(gitlab.GitlabGetError, lambda: project.branches.get("my.branch.name"))


@check
def commits_create_diff_refs_merge_requests():
    # tests/functional/api/test_repository.py test_create_commit and test_list_all_commits
    project = gl.projects.create({"name": unique("commits")})
    commit = project.commits.create({"branch": "main", "commit_message": "blah blah blah", "actions": [{"action": "create", "file_path": "blah", "content": "blah"}]})
    expect("@@" in project.commits.list()[0].diff()[0]["diff"], "the diff of the new file")
    expect(isinstance(commit.refs(), list), "its refs")
    expect(commit.merge_requests() == [], "no merge request has it yet")
    other = project.commits.create({"branch": "new-branch", "start_branch": "main", "commit_message": "On a new branch", "actions": [{"action": "create", "file_path": "new-file", "content": "new"}]})
    expect(other not in project.commits.list(all=True), "not on the default branch")
    expect(other in project.commits.list(get_all=True, all=True), "in every branch's history")
    request = project.mergerequests.create({"source_branch": "new-branch", "target_branch": "main", "title": "New file"})
    expect([mr["iid"] for mr in other.merge_requests()] == [request.iid], "the merge request the commit is in")


@check
def personal_snippets():
    # tests/functional/api/test_snippets.py test_snippets: /snippets lists your snippets, /snippets/all all you may see.
    snippet = gl.snippets.create({"title": "snippet1", "file_name": "snippet1.py", "content": "import gitlab"})
    expect(snippet in gl.snippets.list(get_all=True), "listed at /snippets")
    snippet = gl.snippets.get(snippet.id)
    snippet.title = "updated_title"
    snippet.save()
    snippet = gl.snippets.get(snippet.id)
    expect(snippet.title == "updated_title" and snippet.content().decode() == "import gitlab", "updated, its content")
    expect(snippet.id in [s["id"] for s in gl.http_list("/snippets/all", get_all=True)], "listed at /snippets/all")
    expect(isinstance(gl.snippets.public(), list), "the public ones")
    project = new_project()
    in_project = project.snippets.create({"title": "snip1", "file_name": "foo.py", "content": "initial content", "visibility": "private"})
    expect(in_project.id in [s.id for s in gl.snippets.list(get_all=True)], "yours in a project are listed at /snippets too")
    # The service keeps where a snippet came from only while spam checking is on: 404 here, as on GitLab 16 and later.
    raises(gitlab.GitlabGetError, lambda: in_project.user_agent_detail())
    raises(gitlab.GitlabGetError, lambda: snippet.user_agent_detail())
    snippet.delete()
    expect(snippet not in gl.snippets.list(get_all=True), "gone")


# --- python-gitlab's command line -------------------------------------------------------------------------------


def cli(*args):
    """Runs python-gitlab's CLI (python -m gitlab) against the sandbox; returns (exit status, output)."""
    with tempfile.TemporaryDirectory() as folder:
        config = os.path.join(folder, "python-gitlab.cfg")
        with open(config, "w", encoding="utf-8") as file:
            file.write(f"[global]\ndefault = sandbox\n\n[sandbox]\nurl = {URL}\nprivate_token = {TOKEN}\napi_version = 4\n")
        run = subprocess.run([sys.executable, "-m", "gitlab", "-c", config, *map(str, args)], capture_output=True, text=True, timeout=60)
        return run.returncode, run.stdout + run.stderr


@check
def cli_resource_access_tokens():
    project, group = new_project(), new_group()
    today = datetime.date.today().isoformat()
    for kind, flag, owner in (("project-access-token", "--project-id", project.id), ("group-access-token", "--group-id", group.id)):
        status, output = cli(kind, "create", flag, owner, "--name", "test-token", "--scopes", "api,read_repository", "--expires-at", today)
        expect(status == 0, output)
    expect([t.name for t in project.access_tokens.list()] == ["test-token"], "the token the command line created")


@check
def cli_branch_create_delete():
    # tests/functional/cli/test_cli_v4.py test_create_branch and test_delete_branch, on a new (empty) project.
    project = new_project()
    status, output = cli("project-branch", "create", "--project-id", project.id, "--branch", "branch1", "--ref", "main")
    expect(status == 0, output)
    status, output = cli("project-branch", "delete", "--project-id", project.id, "--name", "branch1")
    expect(status == 0, output)
    expect([b.name for b in project.branches.list()] == ["main"], "only main is left")


def main():
    failed = 0
    only = set(sys.argv[1:])
    for fn in CHECKS:
        if only and fn.__name__ not in only:
            continue
        try:
            fn()
            print(f"ok {fn.__name__}", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            failed += 1
            detail = traceback.format_exc(limit=4).strip().splitlines()
            print(f"FAIL {fn.__name__}: {error!r} | {' / '.join(line.strip() for line in detail[-4:])}", flush=True)
    print(f"{len(CHECKS) if not only else len(only)} checks, {failed} failed", flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(min(main(), 100))
