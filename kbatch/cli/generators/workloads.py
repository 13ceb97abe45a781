"""``create job`` and ``create cronjob`` (k8s.io/kubectl ``pkg/cmd/create/create_job.go``,
``create_cronjob.go``): one container named after the object, with the image and the command given
after ``--``; a Job from a CronJob copies the CronJob's job template."""

from __future__ import annotations

from kbatch.cli.generators import GeneratorError, Obj, object_meta

__all__ = ["INSTANTIATE_ANNOTATION", "cronjob", "job_from_cronjob", "job_from_image", "validate_job"]

INSTANTIATE_ANNOTATION = "cronjob.kubernetes.io/instantiate"


def validate_job(image: str, source: str, command: list[str]) -> None:
    """``CreateJobOptions.Validate``: exactly one of ``--image`` and ``--from``; no command with
    ``--from``."""
    if bool(image) == bool(source):
        raise GeneratorError("either --image or --from must be specified")
    if command and source:
        raise GeneratorError("cannot specify --from and command")


def _pod_template(name: str, image: str, command: list[str], restart: str) -> Obj:
    container: Obj = {"name": name, "image": image}
    if command:
        container["command"] = list(command)
    container["resources"] = {}
    return {"metadata": {}, "spec": {"containers": [container], "restartPolicy": restart}}


def job_from_image(name: str, image: str, command: list[str], namespace: str | None) -> Obj:
    """``createJob``: restart policy ``Never``; everything else is the server's default."""
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": object_meta(name, namespace),
            "spec": {"template": _pod_template(name, image, command, "Never")}, "status": {}}


def job_from_cronjob(name: str, cron: Obj, namespace: str | None) -> Obj:
    """``createJobFromCronJob``: the template's spec, labels and annotations, the annotation
    ``cronjob.kubernetes.io/instantiate: manual`` (a template annotation of the same key wins), and a
    controller owner reference to the CronJob without ``blockOwnerDeletion`` (kubectl leaves it out so
    that the user needs no ``cronjobs/finalizers`` permission)."""
    template = (cron.get("spec") or {}).get("jobTemplate") or {}
    tmeta = template.get("metadata") or {}
    meta = object_meta(name, namespace)
    meta["annotations"] = {INSTANTIATE_ANNOTATION: "manual", **(tmeta.get("annotations") or {})}
    if tmeta.get("labels"):
        meta["labels"] = dict(tmeta["labels"])
    cmeta = cron.get("metadata") or {}
    meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "CronJob", "name": cmeta.get("name", ""),
                                "uid": cmeta.get("uid", ""), "controller": True}]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": _typed_job_spec(template.get("spec") or {}), "status": {}}


def _typed_job_spec(spec: Obj) -> Obj:
    """The JobSpec as kubectl's typed copy writes it: by-value structs the server's JSON may leave out
    (the pod template's ``metadata``, each container's ``resources``) are ``{}``."""
    template = dict(spec.get("template") or {})
    pod = dict(template.get("spec") or {})
    for key in ("initContainers", "containers"):
        if key in pod:
            pod[key] = [{**c, "resources": c.get("resources") or {}} for c in pod[key]]
    return {**spec, "template": {**template, "metadata": template.get("metadata") or {}, "spec": pod}}


def cronjob(name: str, image: str, schedule: str, restart: str, command: list[str],
            namespace: str | None) -> Obj:
    """``createCronJob``: the job template is named after the CronJob; restart policy ``OnFailure``
    unless ``--restart`` says otherwise (the server validates the value)."""
    job_template = {"metadata": {"name": name},
                    "spec": {"template": _pod_template(name, image, command, restart or "OnFailure")}}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": object_meta(name, namespace),
            "spec": {"schedule": schedule, "jobTemplate": job_template}, "status": {}}
