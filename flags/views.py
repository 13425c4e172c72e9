from django.http import HttpResponse


def flag_create(request, cell):
    return HttpResponse("flag form")
