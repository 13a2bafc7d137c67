from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "apps.surveys"
    label = "surveys"
    verbose_name = "Dynamic Live Surveys"
